package io.sandboxd.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * controller/crds/ is exactly what fabric8's CRD generator makes from the model today: a model change
 * without regenerated CRDs (or a hand edit of them) fails here. With -Dsandboxd.crds.write=true it
 * rewrites them instead.
 */
class CrdGenerationTest {
    static final Path CRDS = Path.of(System.getProperty("controller.dir", "."), "crds");

    @Test
    void committedCrdsAreTheGeneratedOnes() throws Exception {
        Map<String, String> generated = CrdGeneration.generate();
        if (Boolean.getBoolean("sandboxd.crds.write")) {
            for (Map.Entry<String, String> e : generated.entrySet()) {
                Files.writeString(CRDS.resolve(e.getKey()), e.getValue());
            }
        }
        TreeSet<String> committed = new TreeSet<>();
        try (Stream<Path> files = Files.list(CRDS)) {
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
                    .forEach(committed::add);
        }
        assertThat(committed).as("CRD files in %s", CRDS).isEqualTo(new TreeSet<>(generated.keySet()));
        for (Map.Entry<String, String> e : generated.entrySet()) {
            assertThat(Files.readString(CRDS.resolve(e.getKey())))
                    .as("%s differs from the generator's output: regenerate it (see its header)", e.getKey())
                    .isEqualTo(e.getValue());
        }
    }
}
