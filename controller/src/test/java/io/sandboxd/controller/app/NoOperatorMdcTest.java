package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.processing.MDCUtils;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class NoOperatorMdcTest {
    private final String before = System.getProperty(NoOperatorMdc.PROPERTY);

    @AfterEach
    void restore() {
        if (before == null) System.clearProperty(NoOperatorMdc.PROPERTY);
        else System.setProperty(NoOperatorMdc.PROPERTY, before);
    }

    @Test
    void turnsJosdksMdcOffWhenNobodyChose() {
        System.clearProperty(NoOperatorMdc.PROPERTY);
        NoOperatorMdc.apply();
        assertThat(System.getProperty(NoOperatorMdc.PROPERTY)).isEqualTo("false");
    }

    @Test
    void keepsTheOperatorsOwnChoice() {
        System.setProperty(NoOperatorMdc.PROPERTY, "true");
        NoOperatorMdc.apply();
        assertThat(System.getProperty(NoOperatorMdc.PROPERTY)).isEqualTo("true");
    }

    @Test
    void josdkThenLeavesTheMdcAlone() throws Exception {
        System.clearProperty(NoOperatorMdc.PROPERTY);
        NoOperatorMdc.apply();
        assertThat(resourceNameInMdcAfterFreshJosdkAddsIt()).isNull();
    }

    @Test
    void josdkFillsTheMdcWhenTheOperatorAsksForIt() throws Exception {
        System.setProperty(NoOperatorMdc.PROPERTY, "true");
        assertThat(resourceNameInMdcAfterFreshJosdkAddsIt()).isEqualTo("a-sandbox");
    }

    /** JOSDK reads the property when its MDC helper is loaded: load a fresh copy of that class. */
    private static String resourceNameInMdcAfterFreshJosdkAddsIt() throws Exception {
        Class<?> fresh = new FreshCopy(MDCUtils.class).loadClass(MDCUtils.class.getName());
        try {
            fresh.getMethod("addResourceIDInfo", ResourceID.class).invoke(null, new ResourceID("a-sandbox", "default"));
            return MDC.get("resource.name");
        } finally {
            MDC.clear();
        }
    }

    /** Defines one class itself and leaves every other to the test's class loader. */
    private static final class FreshCopy extends ClassLoader {
        private final Class<?> copied;

        FreshCopy(Class<?> copied) {
            super(copied.getClassLoader());
            this.copied = copied;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(copied.getName())) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) return c;
                try (InputStream in = copied.getResourceAsStream(copied.getSimpleName() + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
