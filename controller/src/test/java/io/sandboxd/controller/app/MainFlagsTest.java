package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The reconcile-worker flags: defaults, values, and a refusal that names the flag (nothing is started). */
class MainFlagsTest {
    static Main parse(String... args) {
        Main m = new Main();
        new CommandLine(m).parseArgs(args);
        return m;
    }

    @Test
    void defaultsAreThoseOfControllerOptions() {
        assertThat(parse().workers()).isEqualTo(ControllerOptions.Workers.defaults());
    }

    @Test
    void eachControllerGetsItsOwnWorkers() {
        assertThat(parse("--sandbox-workers=5", "--claim-workers", "7", "--warm-pool-workers=3", "--template-workers=1")
                        .workers())
                .isEqualTo(new ControllerOptions.Workers(5, 7, 3, 1));
    }

    @Test
    void fewerThanOneWorkerIsAUsageErrorNamingTheFlag() {
        for (String flag :
                new String[] {"--sandbox-workers", "--claim-workers", "--warm-pool-workers", "--template-workers"}) {
            StringWriter err = new StringWriter();
            CommandLine cl = new CommandLine(new Main());
            cl.setErr(new PrintWriter(err));
            cl.setOut(new PrintWriter(new StringWriter()));
            int rc = cl.execute(flag, "0", "--no-leader-elect");
            assertThat(rc).as(flag).isEqualTo(2);
            assertThat(err.toString()).as(flag).startsWith(flag + " must be at least 1 (reconcile threads), not 0");
        }
    }

    @Test
    void aWorkersValueThatIsNotANumberIsRefusedByTheParser() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("--claim-workers", "many")).isEqualTo(2);
        assertThat(err.toString()).contains("--claim-workers").contains("many");
    }
}
