package io.sandboxd.conformance;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.conformance.cli.ConformanceCommand;
import io.sandboxd.conformance.fake.Breakage;
import io.sandboxd.conformance.fake.FakeRuntime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The suite against deliberately broken runtimes: the fake runtime passes every targeted check when
 * intact, and each single breakage is reported by exactly the expected check ids.
 */
class BrokenRuntimeTest {
    static final List<String> REST_CHECKS = List.of(
            "FS-PATH-001",
            "FS-PATH-002",
            "FS-GET-001",
            "FS-GET-006",
            "FS-GET-007",
            "FS-GET-008",
            "FS-GET-010",
            "FS-GET-014",
            "FS-GET-015",
            "FS-PUT-001",
            "FS-PUT-004",
            "FS-PUT-005",
            "FS-PUT-007",
            "FS-PUT-010",
            "FS-DEL-001",
            "FS-DEL-002",
            "FS-DEL-004",
            "FS-ERR-001",
            "RT-HEALTH-001");
    static final List<String> PROCESS_CHECKS = List.of(
            "PROC-CMD-001",
            "PROC-CMD-003",
            "PROC-CMD-007",
            "PROC-START-001",
            "PROC-START-002",
            "PROC-START-003",
            "PROC-START-005",
            "PROC-START-006",
            "PROC-START-007",
            "PROC-EXEC-001",
            "PROC-STDIN-001",
            "PROC-STDIN-002",
            "PROC-SIG-001",
            "PROC-TTY-007",
            "PROC-TTY-008",
            "PROC-TTY-001",
            "PROC-TTY-002",
            "PROC-TTY-003",
            "PROC-CWD-005");

    /** Which checks must report each breakage. */
    static final Map<Breakage, Set<String>> CAUGHT_BY = Map.ofEntries(
            entry(Breakage.MISSING_IS_400, Set.of("FS-GET-014")),
            entry(Breakage.NON_JSON_ERRORS, Set.of("FS-ERR-001", "FS-GET-014", "FS-DEL-002")),
            entry(Breakage.PUT_201, Set.of("FS-PUT-010")),
            entry(Breakage.UNSORTED_LISTING, Set.of("FS-GET-008")),
            entry(Breakage.FRACTIONAL_TIMESTAMPS, Set.of("FS-GET-010")),
            entry(Breakage.ENCODED_SLASH_REJECTED, Set.of("FS-PATH-001", "FS-PATH-002")),
            entry(Breakage.HEAD_200_ON_MISSING, Set.of("FS-GET-015")),
            entry(Breakage.MODE_IGNORED, Set.of("FS-PUT-004")),
            entry(Breakage.NO_INIT, Set.of("PROC-START-001", "PROC-START-002")),
            entry(Breakage.EXIT_NOT_LAST, Set.of("PROC-START-002")),
            entry(Breakage.STDERR_AS_STDOUT, Set.of("PROC-START-006", "PROC-START-007")),
            entry(
                    Breakage.NOT_FOUND_AS_INTERNAL,
                    Set.of("PROC-CMD-007", "PROC-STDIN-001", "PROC-SIG-001", "PROC-TTY-007")),
            entry(Breakage.PTY_IGNORED, Set.of("PROC-TTY-001", "PROC-TTY-002", "PROC-TTY-003")),
            entry(Breakage.EARLY_SIGNAL_LOST, Set.of("PROC-START-005")),
            entry(Breakage.CWD_ESCAPES, Set.of("PROC-CWD-005")),
            // Not PROC-TTY-002: losing the whole output is not a failure to merge stderr.
            entry(Breakage.PTY_OUTPUT_LOST, Set.of("PROC-TTY-001", "PROC-TTY-003")));

    /** Checks that may fail as well, because they use the broken behaviour to set up or verify. */
    static final Map<Breakage, Set<String>> MAY_ALSO_FAIL = Map.of(
            Breakage.MISSING_IS_400, Set.of("FS-DEL-001", "FS-DEL-004"),
            Breakage.NON_JSON_ERRORS, Set.of("FS-DEL-004"),
            Breakage.ENCODED_SLASH_REJECTED, Set.copyOf(REST_CHECKS),
            Breakage.NO_INIT, Set.copyOf(PROCESS_CHECKS));

    record Run(int exit, String stdout, String stderr, Map<String, JsonNode> checks) {
        Set<String> failed() {
            Set<String> f = new TreeSet<>();
            checks.forEach((id, c) -> {
                if (c.path("outcome").stringValue().equals("fail")) {
                    f.add(id);
                }
            });
            return f;
        }
    }

    static Run suite(FakeRuntime rt, Path reports, List<String> ids) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = ConformanceCommand.execute(
                new String[] {
                    "--grpc",
                    rt.grpcTarget(),
                    "--rest",
                    rt.restBase(),
                    "--report-dir",
                    reports.toString(),
                    "--only",
                    String.join(",", ids)
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        JsonNode report = JsonMapper.builder()
                .build()
                .readTree(reports.resolve("conformance-report.json").toFile());
        Map<String, JsonNode> checks = new java.util.LinkedHashMap<>();
        for (JsonNode c : report.path("checks")) {
            checks.put(c.path("id").stringValue(), c);
        }
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), checks);
    }

    @Test
    void intactFakePassesEveryTargetedCheck(@TempDir Path root, @TempDir Path reports) throws Exception {
        try (FakeRuntime rt = new FakeRuntime(root, EnumSet.noneOf(Breakage.class))) {
            List<String> all = new java.util.ArrayList<>(REST_CHECKS);
            all.addAll(PROCESS_CHECKS);
            Run run = suite(rt, reports, all);
            assertThat(run.failed()).as(run.stdout() + run.stderr()).isEmpty();
            assertThat(run.exit()).isZero();
            assertThat(run.stdout()).contains(all.size() + " passed, 0 failed, 0 skipped");
            assertThat(Files.readString(reports.resolve("conformance-junit.xml")))
                    .contains("tests=\"" + all.size() + "\"");
        }
    }

    @ParameterizedTest
    @EnumSource(Breakage.class)
    void eachBreakageIsCaughtByTheExpectedChecks(Breakage breakage, @TempDir Path root, @TempDir Path reports)
            throws Exception {
        boolean restSide = breakage.ordinal() <= Breakage.MODE_IGNORED.ordinal();
        try (FakeRuntime rt = new FakeRuntime(root, EnumSet.of(breakage))) {
            Run run = suite(rt, reports, restSide ? REST_CHECKS : PROCESS_CHECKS);
            Set<String> allowed = new TreeSet<>(CAUGHT_BY.get(breakage));
            allowed.addAll(MAY_ALSO_FAIL.getOrDefault(breakage, Set.of()));
            assertThat(run.failed()).as(breakage + ":\n" + run.stdout()).containsAll(CAUGHT_BY.get(breakage));
            assertThat(allowed)
                    .as(breakage + " failed checks beyond the expected ones:\n" + run.stdout())
                    .containsAll(run.failed());
            assertThat(run.exit()).isEqualTo(1);
            if (breakage == Breakage.PTY_OUTPUT_LOST) {
                assertThat(run.checks().get("PROC-TTY-002").path("outcome").stringValue())
                        .isEqualTo("skip");
            }
            for (String id : CAUGHT_BY.get(breakage)) {
                assertThat(run.checks().get(id).path("message").stringValue())
                        .as(id)
                        .contains("expected");
            }
        }
    }
}
