package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildEnvironmentTest {
    private static List<String> encoded(ChildEnvironment env) {
        return Arrays.stream(env.encoded())
                .map(b -> new String(b, StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    void overridesReplaceDaemonVariablesWithoutDuplicateKeys() {
        ChildEnvironment.Base base =
                new ChildEnvironment.Base(Map.of("PATH", "/bin", "HOME", "/root", "PWD", "/stale"));
        Map<String, String> o = ChildEnvironment.newOverrides();
        o.put("PWD", "/work");
        o.put("PATH", "/opt/bin");
        o.put("NEW", "x=y");
        ChildEnvironment env = new ChildEnvironment(base, o);
        assertThat(encoded(env)).containsExactlyInAnyOrder("HOME=/root", "PWD=/work", "PATH=/opt/bin", "NEW=x=y");
        assertThat(env.asMap())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("HOME", "/root", "PWD", "/work", "PATH", "/opt/bin", "NEW", "x=y"));
        assertThat(env.asMap().get("PATH")).isEqualTo("/opt/bin");
        assertThat(env.asMap().get("HOME")).isEqualTo("/root");
        assertThat(env.asMap().get("MISSING")).isNull();
    }

    @Test
    void theDaemonPartIsEncodedOnceAndSharedAcrossChildren() {
        ChildEnvironment.Base base = new ChildEnvironment.Base(Map.of("LANG", "C.UTF-8", "GRÜSSE", "grüß"));
        byte[][] a = new ChildEnvironment(base, ChildEnvironment.newOverrides()).encoded();
        byte[][] b = new ChildEnvironment(base, ChildEnvironment.newOverrides()).encoded();
        assertThat(a.length).isEqualTo(2);
        for (int i = 0; i < a.length; i++) {
            assertThat(a[i]).isSameAs(b[i]);
        }
        assertThat(encoded(new ChildEnvironment(base, ChildEnvironment.newOverrides())))
                .contains("GRÜSSE=grüß");
    }
}
