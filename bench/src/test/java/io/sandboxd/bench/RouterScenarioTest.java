package io.sandboxd.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RouterScenarioTest {

    @Test
    void passesEveryOtherOptionToTheRouterBenchmark(@TempDir Path dir) throws Exception {
        Path jar = Files.writeString(dir.resolve("router.jar"), "x");
        List<String> cmd = RouterScenario.command(
                new String[] {"--concurrency", "10,50", "--router-jar", jar.toString(), "--json", "r.json"},
                new PrintStream(new ByteArrayOutputStream()));
        assertThat(cmd).isNotNull();
        assertThat(cmd.subList(1, cmd.size())).containsExactly("-cp", jar.toString(), RouterScenario.MAIN,
                "--concurrency", "10,50", "--json", "r.json");
    }

    @Test
    void aMissingRouterJarIsAUsageErrorThatSaysHowToBuildIt(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RouterScenario.run(new String[] {"--router-jar", dir.resolve("nope.jar").toString()},
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not found").contains("-pl router");
    }
}
