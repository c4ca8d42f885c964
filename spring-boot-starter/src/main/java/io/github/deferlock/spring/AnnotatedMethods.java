package io.github.deferlock.spring;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** The methods of a bean's class (behind any proxy) that carry an annotation, directly or inherited. */
final class AnnotatedMethods {

    private AnnotatedMethods() {}

    static <A extends Annotation> Map<Method, A> of(Object bean, Class<A> annotation) {
        return MethodIntrospector.selectMethods(AopUtils.getTargetClass(bean), (MethodIntrospector.MetadataLookup<A>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, annotation));
    }
}
