package io.github.deferlock.spring;

import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@code @WithLock} methods, checks each once (a bad annotation fails the start, naming the method), and
 * wraps their beans in a proxy whose lock advice runs outside any other advice (so a transaction commits before
 * the lock is released).
 */
final class WithLockPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {

    private static final long serialVersionUID = 1L;

    private transient WithLockInterceptor interceptor;

    WithLockPostProcessor() {
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        interceptor = new WithLockInterceptor(beanFactory);
        this.advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, WithLock.class, true), interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, WithLock> found =
                MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<WithLock>)
                        m -> AnnotatedElementUtils.findMergedAnnotation(m, WithLock.class));
        found.forEach((method, annotation) -> interceptor.register(LockedMethod.of(beanName, method, annotation)));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    WithLockInterceptor interceptor() {
        return interceptor;
    }

    @Override
    public void afterSingletonsInstantiated() {
        interceptor.registerDeferHandlers();
    }
}
