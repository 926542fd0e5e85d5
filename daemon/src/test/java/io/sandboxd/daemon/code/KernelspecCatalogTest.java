package io.sandboxd.daemon.code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelspecCatalogTest {
    @TempDir
    Path tmp;

    @Test
    void theSearchPathIsJupytersInOrder() {
        assertThat(KernelspecCatalog.searchPath(Map.of("JUPYTER_PATH", "/a:/b:relative", "HOME", "/home/u")))
                .containsExactly(
                        Path.of("/a/kernels"),
                        Path.of("/b/kernels"),
                        Path.of("/home/u/.local/share/jupyter/kernels"),
                        Path.of("/usr/local/share/jupyter/kernels"),
                        Path.of("/usr/share/jupyter/kernels"));
        assertThat(KernelspecCatalog.searchPath(Map.of("JUPYTER_DATA_DIR", "/d", "HOME", "/home/u")))
                .startsWith(Path.of("/d/kernels"));
        assertThat(KernelspecCatalog.searchPath(Map.of("XDG_DATA_HOME", "/x", "HOME", "/home/u")))
                .startsWith(Path.of("/x/jupyter/kernels"));
        assertThat(KernelspecCatalog.searchPath(Map.of()))
                .containsExactly(Path.of("/usr/local/share/jupyter/kernels"), Path.of("/usr/share/jupyter/kernels"));
    }

    private void spec(Path dir, String name, String json) throws Exception {
        Files.createDirectories(dir.resolve(name));
        Files.writeString(dir.resolve(name).resolve("kernel.json"), json);
    }

    @Test
    void findsByNameThenLanguageFirstOnThePathWinning() throws Exception {
        Path first = tmp.resolve("first");
        Path second = tmp.resolve("second");
        spec(first, "py", "{\"argv\":[\"python3\",\"-f\",\"{connection_file}\"],\"language\":\"Python\"}");
        spec(second, "py", "{\"argv\":[\"other\"],\"language\":\"python\"}");
        spec(
                second,
                "ir",
                "{\"argv\":[\"R\"],\"language\":\"R\",\"interrupt_mode\":\"message\",\"env\":{\"A\":\"1\"}}");
        spec(second, "broken", "{\"argv\":[]}");
        spec(second, "bad name!", "{\"argv\":[\"x\"]}");
        KernelspecCatalog c = new KernelspecCatalog(List.of(first, second, tmp.resolve("missing")));
        assertThat(c.available()).containsOnlyKeys("py", "ir");
        Kernelspec py = c.find("", "PYTHON");
        assertThat(py.argv()).containsExactly("python3", "-f", "{connection_file}");
        assertThat(py.interruptBySignal()).isTrue();
        assertThat(py.command(Path.of("/s/k.json"))).containsExactly("python3", "-f", "/s/k.json");
        Kernelspec ir = c.find("ir", "python");
        assertThat(ir.interruptBySignal()).isFalse();
        assertThat(ir.env()).containsEntry("A", "1");
        assertThat(c.find(null, null).name()).isEqualTo("py");
        assertThatThrownBy(() -> c.find("", "julia")).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND);
            assertThat(e.getMessage()).contains("julia").contains("py (Python)").contains("ir (R)");
        });
        assertThatThrownBy(() -> c.find("../x", ""))
                .isInstanceOfSatisfying(
                        SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
        assertThatThrownBy(() -> new KernelspecCatalog(List.of()).find("", ""))
                .hasMessageContaining("no Jupyter kernelspec is installed");
    }

    @Test
    void malformedSpecsAreRejected() {
        for (String bad : new String[] {
            "[]", "{}", "{\"argv\":\"x\"}", "{\"argv\":[1]}", "{\"argv\":[\"x\"],\"interrupt_mode\":\"other\"}", "nope"
        }) {
            assertThatThrownBy(() -> KernelspecCatalog.parse("k", Path.of("/k"), bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(KernelspecCatalog.parse("k", Path.of("/k"), "{\"argv\":[\"x\"]}")
                        .language())
                .isEqualTo("k");
    }

    @Test
    void rssFromProcStatus() {
        assertThat(ProcRss.parse("Name:\tx\nVmRSS:\t    1234 kB\nVmSwap: 0 kB\n"))
                .isEqualTo(1234L * 1024);
        assertThat(ProcRss.parse("Name:\tx\n")).isZero();
        assertThat(ProcRss.of(ProcessHandle.current().pid())).isPositive();
        assertThat(ProcRss.of(Long.MAX_VALUE)).isZero();
    }
}
