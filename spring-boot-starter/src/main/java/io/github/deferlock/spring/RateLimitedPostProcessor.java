package io.github.deferlock.spring;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;

/**
 * Finds {@code @RateLimited} methods, checks each once (a bad annotation fails the start, naming the method),
 * and wraps their beans in a proxy whose advice runs outside any other advice, {@code @WithLock}'s included (the
 * start is taken before the lock).
 */
final class RateLimitedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    private transient RateLimitedInterceptor interceptor;

    RateLimitedPostProcessor() {
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        interceptor = new RateLimitedInterceptor(beanFactory);
        this.advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, RateLimited.class, true), interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        AnnotatedMethods.of(bean, RateLimited.class)
                .forEach((method, annotation) -> interceptor.register(RateLimitedMethod.of(method, annotation)));
        return super.postProcessAfterInitialization(bean, beanName);
    }
}
