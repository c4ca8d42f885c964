package io.github.deferlock.spring;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

/** Runs {@code @RateLimited} methods through a {@code LockRunner}'s rate limit. Threadsafe. */
final class RateLimitedInterceptor implements MethodInterceptor {

    /** Carries the body's own exception through the runner, which would wrap a checked one. */
    private static final class BodyFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BodyFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    private final BeanFactory beanFactory;
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final Map<Method, RateLimitedMethod> methods = new ConcurrentHashMap<>();
    private volatile LockClients clients;

    RateLimitedInterceptor(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    void register(RateLimitedMethod m) {
        methods.put(m.method(), m);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = WithLockInterceptor.specific(invocation);
        RateLimitedMethod limited = methods.get(method);
        if (limited == null) {
            return invocation.proceed();
        }
        String key = keyOf(limited, invocation);
        try {
            return clients()
                    .runner(null, limited.maxWait())
                    .withRateLimit(key, limited.limit(), limited.onConflict(), () -> {
                        try {
                            return invocation.proceed();
                        } catch (Throwable t) {
                            throw new BodyFailure(t);
                        }
                    });
        } catch (BodyFailure f) {
            throw f.getCause();
        }
    }

    private String keyOf(RateLimitedMethod limited, MethodInvocation invocation) {
        Object[] args = invocation.getArguments();
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new WithLockInterceptor.KeyRoot(invocation.getThis(), limited.method(), args),
                limited.method(),
                args,
                names);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value = limited.key().getValue(context);
        String key = value == null ? null : value.toString();
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("the key '" + limited.keySource() + "' of @RateLimited "
                    + limited.method().getDeclaringClass().getSimpleName() + "."
                    + limited.method().getName()
                    + " gave " + (key == null ? "null" : "an empty name") + ": a rate limiter needs a non-empty name");
        }
        return key;
    }

    private LockClients clients() {
        LockClients c = clients;
        if (c == null) {
            c = beanFactory.getBean(LockClients.class);
            clients = c;
        }
        return c;
    }
}
