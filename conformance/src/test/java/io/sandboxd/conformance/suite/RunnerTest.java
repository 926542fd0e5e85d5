package io.sandboxd.conformance.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** A check that runs out of time says where it was waiting. */
class RunnerTest {
    @Test
    void aCheckStuckInAClientCallIsReportedWithTheCallAndItsLine() throws Exception {
        // A runtime that accepts connections and never answers: the gRPC call waits for good.
        List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (Exception closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String address = "127.0.0.1:" + silent.getLocalPort();
            SuiteOptions options = new SuiteOptions(
                    address,
                    URI.create("http://" + address),
                    "token",
                    OptionalInt.empty(),
                    65536,
                    "SANDBOX_",
                    false,
                    Optional.empty());
            try (Suite suite = new Suite(options)) {
                Map<CheckId, Check> checks =
                        Map.of(CheckId.CODE_EXEC_001, ctx -> ctx.client().code().create("python"));
                List<CheckResult> results =
                        new Runner(suite, checks, Duration.ofSeconds(2)).run(List.of(CheckId.CODE_EXEC_001), r -> {});
                assertThat(results).singleElement().satisfies(r -> {
                    assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
                    assertThat(r.message())
                            .matches("check did not finish within 2 s: the runtime hangs on it"
                                    + " \\(waiting in CodeContexts\\.create, called at RunnerTest\\.java:[0-9]+\\)");
                });
            }
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
