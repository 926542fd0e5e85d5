package io.sandboxd.conformance;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.conformance.cli.ConformanceCommand;
import io.sandboxd.conformance.fake.DurableBreakage;
import io.sandboxd.conformance.fake.DurableProxy;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The durable checks (level extended) through a proxy in front of our daemon that breaks one
 * rule of runtime-contract §4.1 at a time: each breakage fails the check of that rule, with a
 * message naming what it expected instead (DaemonConformanceIT shows every check passing
 * against the daemon itself).
 */
class BrokenDurableIT {
    /** The check that must fail, and a piece of its message that names the broken rule. */
    static final Map<DurableBreakage, Map.Entry<String, String>> CAUGHT_BY = Map.ofEntries(
            entry(DurableBreakage.STARTED_MISSING, entry("DUR-START-001", "expected the first event to be started")),
            entry(DurableBreakage.DETACH_IGNORED, entry("DUR-START-002", "expected the process to run on")),
            entry(DurableBreakage.NO_KILL_ON_CANCEL, entry("DUR-START-003", "expected the tree to be killed")),
            entry(DurableBreakage.TAG_NOT_UNIQUE, entry("DUR-TAG-001", "expected gRPC status ALREADY_EXISTS")),
            entry(DurableBreakage.IDS_SEPARATE, entry("DUR-ID-001", "expected gRPC status OK, got NOT_FOUND")),
            entry(DurableBreakage.V1_NOT_LISTED, entry("DUR-ID-002", "expected gRPC status OK, got NOT_FOUND")),
            entry(DurableBreakage.OFFSETS_SHIFTED, entry("DUR-ATTACH-001", "where the previous one ended")),
            entry(DurableBreakage.OFFSET_IGNORED, entry("DUR-ATTACH-001", "stdout_offset=1234")),
            entry(DurableBreakage.OUT_OF_RANGE_AS_INVALID, entry("DUR-ATTACH-003", "expected OUT_OF_RANGE, got")),
            entry(
                    DurableBreakage.NOT_FOUND_AS_INTERNAL,
                    entry("DUR-ATTACH-004", "expected gRPC status NOT_FOUND, got INTERNAL")),
            entry(DurableBreakage.GAP_DROPPED, entry("DUR-ATTACH-005", "expected exactly one gap")),
            entry(DurableBreakage.NO_HEARTBEAT, entry("DUR-ATTACH-006", "expected at least 2 heartbeat events")),
            entry(DurableBreakage.STALL_COUPLED, entry("DUR-ATTACH-007", "expected the stream to end within")),
            entry(DurableBreakage.LIST_WITHOUT_TAG, entry("DUR-LIST-001", "expected {process_id=")),
            entry(
                    DurableBreakage.NO_TREE,
                    entry("DUR-LIST-002", "expected tree{processes, cpu_millis, rss_bytes}, got none")),
            entry(DurableBreakage.SIGNAL_AS_EXITED, entry("DUR-WAIT-001", "expected exit{SIGNALED, signal=9}")),
            entry(DurableBreakage.TIMEOUT_NOT_REPORTED, entry("DUR-TIMEOUT-001", "expected exit{TIMED_OUT")),
            entry(DurableBreakage.PTY_RESIZE_LOST, entry("DUR-PTY-001", "expected \"30 100\"")));

    static RunningDaemon daemon;
    static DurableProxy proxy;

    @BeforeAll
    static void start(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectory(tmp.resolve("root"));
        daemon = DaemonSpec.packagedJar()
                .withRootDir(root)
                .withArgs(
                        "--state-dir",
                        Files.createDirectory(tmp.resolve("state")).toString(),
                        "--attach-heartbeat",
                        "1s",
                        "--timeout-grace",
                        "1s")
                .withLogName("broken-durable-it-daemon")
                .start();
        proxy = new DurableProxy(daemon.grpcTarget());
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    record Run(int exit, String stdout, Map<String, JsonNode> checks) {}

    static Run suite(Path reports, List<String> args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(
                "--grpc",
                proxy.target(),
                "--rest",
                daemon.restBase(),
                "--attach-heartbeat",
                "1s",
                "--report-dir",
                reports.toString()));
        all.addAll(args);
        int exit = ConformanceCommand.execute(
                all.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        JsonNode report = JsonMapper.builder()
                .build()
                .readTree(reports.resolve("conformance-report.json").toFile());
        Map<String, JsonNode> checks = new java.util.LinkedHashMap<>();
        for (JsonNode c : report.path("checks")) {
            checks.put(c.path("id").stringValue(), c);
        }
        return new Run(exit, out.toString(StandardCharsets.UTF_8), checks);
    }

    @ParameterizedTest
    @EnumSource(DurableBreakage.class)
    void eachBrokenRuleFailsItsCheckForThatReason(DurableBreakage breakage, @TempDir Path reports) throws Exception {
        Map.Entry<String, String> expected = CAUGHT_BY.get(breakage);
        proxy.breakage(breakage);
        try {
            Run run = suite(reports, List.of("--only", expected.getKey()));
            JsonNode c = run.checks().get(expected.getKey());
            assertThat(c.path("outcome").stringValue())
                    .as(breakage + " -> " + expected.getKey() + ": "
                            + c.path("message").stringValue())
                    .isEqualTo("fail");
            assertThat(c.path("message").stringValue()).as(breakage.name()).contains(expected.getValue());
            assertThat(run.exit()).isEqualTo(1);
        } finally {
            proxy.breakage(null);
        }
    }
}
