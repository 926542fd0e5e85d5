package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The reconcile-worker and event-loop flags: defaults, values, and a refusal that names the flag (nothing is started). */
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
    void apiEventLoopsDefaultToOnePerCoreAndTakeAValue() {
        assertThat(parse().apiEventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(parse("--api-event-loops=3").apiEventLoops()).isEqualTo(3);
    }

    @Test
    void fewerThanOneEventLoopIsAUsageErrorNamingTheFlag() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        assertThat(cl.execute("--api-event-loops", "0", "--no-leader-elect")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--api-event-loops must be at least 1 (event loop threads), not 0");
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
