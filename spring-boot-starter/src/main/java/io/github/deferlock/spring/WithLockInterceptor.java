package io.github.deferlock.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.util.ClassUtils;

/**
 * Runs {@code @WithLock} methods: THROW and SLEEP_RETRY through a {@code LockRunner}, DEFER through a {@link
 * ConflictAwareHandler} per method whose messages are {@link DeferredCall}s. The collaborators (locks,
 * deferrals) are looked up on first use, so the post-processor that owns this interceptor does not pull them
 * into the context early.
 */
final class WithLockInterceptor implements MethodInterceptor {

    /** The root object of key expressions: {@code #root.target}, {@code #root.method}, {@code #root.args}. */
    record KeyRoot(Object target, Method method, Object[] args) {}

    /** A call in progress on this thread whose body the DEFER handler runs when it gets the lock at once. */
    private static final class Pending {
        final MethodInvocation invocation;
        boolean ran;
        Object result;

        Pending(MethodInvocation invocation) {
            this.invocation = invocation;
        }
    }

    /** Carries the body's own exception through the lock code, which would wrap a checked one. */
    private static final class BodyFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BodyFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    private final BeanFactory beanFactory;
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();
    private final Map<Method, ConflictAwareHandler<DeferredCall>> handlers = new ConcurrentHashMap<>();
    private final ThreadLocal<Pending> pending = new ThreadLocal<>();
    private final ThreadLocal<Method> deferredRun = new ThreadLocal<>();
    private volatile LockClients clients;
    private volatile Deferrals deferrals;
    private volatile ObjectMapper mapper;

    WithLockInterceptor(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    void register(LockedMethod m) {
        methods.put(m.method(), m);
    }

    boolean hasDeferMethods() {
        return methods.values().stream().anyMatch(m -> m.onConflict() == OnConflict.DEFER);
    }

    /** Builds the DEFER handlers, so this instance can run deferred calls before any local call. */
    void registerDeferHandlers() {
        methods.values().stream()
                .filter(m -> m.onConflict() == OnConflict.DEFER)
                .forEach(this::handlerOf);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = specific(invocation);
        LockedMethod locked = methods.get(method);
        if (locked == null) {
            return invocation.proceed();
        }
        // equals, not ==: reflection hands out a new Method object per lookup, so a deferred run's method is
        // never the same instance as this invocation's; with == it went through DEFER again (re-entering the
        // lock it holds) and every deferred run was counted twice by the conflict listeners (issue 28)
        if (method.equals(deferredRun.get())) {
            deferredRun.remove(); // a deferred run: the deferral worker holds the lock already
            return invocation.proceed();
        }
        String key = keyOf(locked, invocation);
        try {
            if (locked.onConflict() instanceof OnConflict.Blocking blocking) {
                LockRunner runner = clients().runner(locked.lease(), locked.maxWait());
                return locked.permits() > 1
                        ? runner.withPermit(key, locked.permits(), blocking, () -> proceed(invocation))
                        : runner.withLock(key, blocking, () -> proceed(invocation));
            }
            return defer(locked, key, invocation);
        } catch (BodyFailure f) {
            throw f.getCause();
        }
    }

    private Object defer(LockedMethod locked, String key, MethodInvocation invocation) {
        DeferredCall call = new DeferredCall(key, encode(locked, invocation.getArguments()));
        Pending outer = pending.get();
        Pending mine = new Pending(invocation);
        pending.set(mine);
        try {
            Outcome outcome = handlerOf(locked).handle(call);
            if (outcome == Outcome.PROCESSED && mine.ran) {
                return mine.result;
            }
            return locked.returnsOutcome() ? LockOutcome.deferred(key) : null;
        } finally {
            if (outer == null) {
                pending.remove();
            } else {
                pending.set(outer);
            }
        }
    }

    private static Object proceed(MethodInvocation invocation) {
        try {
            return invocation.proceed();
        } catch (Throwable t) {
            throw new BodyFailure(t);
        }
    }

    private ConflictAwareHandler<DeferredCall> handlerOf(LockedMethod locked) {
        return handlers.computeIfAbsent(locked.method(), m -> ConflictAwareHandler.builder(
                        locked.handlerName(), DeferredCall.class, clients().locks(locked.lease()))
                .key(DeferredCall::lock)
                .handler(call -> run(locked, call))
                .onConflict(OnConflict.DEFER)
                .permits(locked.permits())
                .deferrals(deferrals())
                .listener(clients().conflictListener())
                .build());
    }

    /** Runs a call under its lock: this thread's pending call, or a deferred one from the queue. */
    private void run(LockedMethod locked, DeferredCall call) throws Exception {
        Pending p = pending.get();
        if (p != null && !p.ran && specific(p.invocation).equals(locked.method())) {
            p.ran = true;
            p.result = proceed(p.invocation);
            return;
        }
        Object[] args = decode(locked, call.args());
        Object bean = beanFactory.getBean(locked.beanName());
        deferredRun.set(locked.method());
        try {
            locked.method().invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        } finally {
            deferredRun.remove();
        }
    }

    private List<JsonNode> encode(LockedMethod locked, Object[] args) {
        List<JsonNode> out = new ArrayList<>(args.length);
        for (int i = 0; i < args.length; i++) {
            try {
                out.add(mapper().valueToTree(args[i]));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "argument " + i + " of " + where(locked) + " cannot be stored as JSON for DEFER: "
                                + e.getMessage(),
                        e);
            }
        }
        return out;
    }

    private Object[] decode(LockedMethod locked, List<JsonNode> stored) throws Exception {
        Method m = locked.method();
        if (stored.size() != m.getParameterCount()) {
            throw new IllegalStateException("a deferred call of " + where(locked) + " has " + stored.size()
                    + " arguments but the method takes " + m.getParameterCount());
        }
        Object[] args = new Object[stored.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = mapper().readerFor(mapper().constructType(m.getGenericParameterTypes()[i]))
                    .readValue(stored.get(i));
        }
        return args;
    }

    private String keyOf(LockedMethod locked, MethodInvocation invocation) {
        Object[] args = invocation.getArguments();
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new KeyRoot(invocation.getThis(), locked.method(), args), locked.method(), args, names);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value = locked.key().getValue(context);
        String key = value == null ? null : value.toString();
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("the key '" + locked.keySource() + "' of " + where(locked) + " gave "
                    + (key == null ? "null" : "an empty name") + ": a lock needs a non-empty name");
        }
        return key;
    }

    private static String where(LockedMethod locked) {
        return "@WithLock " + locked.method().getDeclaringClass().getSimpleName() + "."
                + locked.method().getName();
    }

    /** The bean class's own method behind {@code invocation} (bridges and proxies resolved); shared by the advices. */
    static Method specific(MethodInvocation invocation) {
        Class<?> target = invocation.getThis() == null
                ? invocation.getMethod().getDeclaringClass()
                : ClassUtils.getUserClass(AopUtils.getTargetClass(invocation.getThis()));
        return BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(invocation.getMethod(), target));
    }

    private LockClients clients() {
        LockClients c = clients;
        if (c == null) {
            c = beanFactory.getBean(LockClients.class);
            clients = c;
        }
        return c;
    }

    private Deferrals deferrals() {
        Deferrals d = deferrals;
        if (d == null) {
            d = beanFactory.getBean(Deferrals.class);
            deferrals = d;
        }
        return d;
    }

    private ObjectMapper mapper() {
        ObjectMapper m = mapper;
        if (m == null) {
            m = DeferlockAutoConfiguration.deferralMapper();
            mapper = m;
        }
        return m;
    }
}
