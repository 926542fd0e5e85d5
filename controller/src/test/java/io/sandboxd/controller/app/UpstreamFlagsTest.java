package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.logging.LogFormat;
import io.sandboxd.logging.LogLevel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Every flag upstream's agent-sandbox-controller defines parses: honoured, or with one no-effect warning. */
class UpstreamFlagsTest {
    private static Main parse(String... args) {
        CommandLine cmd = Main.commandLine();
        cmd.parseArgs(args);
        return cmd.getCommand();
    }

    private static List<String> warnings(String... args) {
        CommandLine cmd = Main.commandLine();
        return UpstreamFlags.ALL.warnings(cmd.parseArgs(args));
    }

    @Test
    void upstreamWorkerFlagsSetTheWorkers() {
        Main m = parse(
                "--sandbox-concurrent-workers=7",
                "--sandbox-claim-concurrent-workers=5",
                "--sandbox-warm-pool-concurrent-workers=3",
                "--sandbox-template-concurrent-workers=2");
        assertThat(List.of(m.sandboxWorkers, m.claimWorkers, m.warmPoolWorkers, m.templateWorkers))
                .containsExactly(7, 5, 3, 2);
    }

    @Test
    void upstreamHonouredFlagsParseTheGoWay() {
        Main m = parse(
                "--leader-elect=false",
                "--extensions=false",
                "--leader-election-namespace=ns",
                "--leader-election-id=lease",
                "--metrics-bind-address=127.0.0.1:9999",
                "--cluster-domain=example.org");
        assertThat(m.leaderElect).isFalse();
        assertThat(m.extensions).isFalse();
        assertThat(m.leaseNamespace).isEqualTo("ns");
        assertThat(m.leaseName).isEqualTo("lease");
        assertThat(m.metricsAddress).isEqualTo("127.0.0.1:9999");
        assertThat(m.clusterDomain).isEqualTo("example.org");
        assertThat(parse("--leader-elect").leaderElect).isTrue();
        assertThat(parse("--leader-elect=true", "--extensions").extensions).isTrue();
        assertThat(warnings("--leader-elect=false", "--sandbox-concurrent-workers=3"))
                .isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "--health-probe-bind-address=:8081, --health-probe-bind-address",
        "--enable-tracing, --enable-tracing",
        "--enable-pprof, --enable-pprof",
        "--enable-pprof-debug=true, --enable-pprof-debug",
        "--pprof-block-profile-rate=1000000, --pprof-block-profile-rate",
        "--pprof-mutex-profile-fraction=10, --pprof-mutex-profile-fraction",
        "--kube-api-qps=-1, --kube-api-qps",
        "--kube-api-burst=10, --kube-api-burst",
        "--api-connections=1, --api-connections",
        "--separate-watch-connection=false, --separate-watch-connection",
        "--sandbox-warm-pool-max-batch-size=300, --sandbox-warm-pool-max-batch-size",
        "--sandbox-warm-pool-replenish-delay=0s, --sandbox-warm-pool-replenish-delay",
        "--sandbox-warm-pool-max-refill-rate=0, --sandbox-warm-pool-max-refill-rate",
        "--sandbox-warm-pool-readiness-grace-period=5m, --sandbox-warm-pool-readiness-grace-period",
        "--sandbox-warm-pool-unschedulable-recheck-interval=1m, --sandbox-warm-pool-unschedulable-recheck-interval",
        "--sandbox-write-behind-window=0, --sandbox-write-behind-window",
        "--enable-warm-pool-eviction=true, --enable-warm-pool-eviction",
        "--cache-label-selectors, --cache-label-selectors",
        "--disable-claim-events, --disable-claim-events",
        "--disable-claim-observability-annotations, --disable-claim-observability-annotations",
        "--webhook-port=9443, --webhook-port",
        "--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs, --webhook-cert-dir",
        "--webhook-cert-name=tls.crt, --webhook-cert-name",
        "--webhook-key-name=tls.key, --webhook-key-name",
        "--webhook-service-name=agent-sandbox-webhook-service, --webhook-service-name",
        "--webhook-namespace=agent-sandbox-system, --webhook-namespace",
        "--manage-webhook-certs=false, --manage-webhook-certs",
        "--enable-webhook=false, --enable-webhook",
        "--zap-devel, --zap-devel",
        "--zap-stacktrace-level=error, --zap-stacktrace-level",
        "--zap-time-encoding=rfc3339, --zap-time-encoding",
    })
    void upstreamOnlyFlagIsAcceptedWithOneWarning(String arg, String flag) {
        assertThat(warnings(arg))
                .singleElement()
                .asString()
                .startsWith("warning: " + flag + " has no effect here (accepted for upstream compatibility; ");
    }

    @Test
    void zapEncoderChoosesTheLogFormatUnlessLogFormatOrItsEnvIsGiven() {
        assertThat(parse("--zap-encoder=json").logFormat(Map.of())).isEqualTo(LogFormat.JSON);
        assertThat(parse("--zap-encoder", "console").logFormat(Map.of())).isEqualTo(LogFormat.TEXT);
        assertThat(parse("--log-format=json").logFormat(Map.of())).isEqualTo(LogFormat.JSON);
        assertThat(parse("--zap-encoder=json", "--log-format=text").logFormat(Map.of()))
                .isEqualTo(LogFormat.TEXT);
        assertThat(parse("--zap-encoder=json").logFormat(Map.of(Main.LOG_FORMAT_ENV, "text")))
                .isEqualTo(LogFormat.TEXT);
        assertThat(warnings("--zap-encoder=json")).isEmpty();
        assertThatThrownBy(() -> parse("--zap-encoder=yaml").logFormat(Map.of()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--zap-encoder must be json or console (got \"yaml\")");
        assertThatThrownBy(() -> parse("--log-format=xml").logFormat(Map.of()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--log-format must be text or json (got \"xml\")");
    }

    @Test
    void zapLogLevelSetsTheRootLevelTheWayZapReadsIt() {
        assertThat(parse().logLevel()).isEqualTo(LogLevel.INFO);
        assertThat(parse("--zap-log-level=debug").logLevel()).isEqualTo(LogLevel.DEBUG);
        assertThat(parse("--zap-log-level", "error").logLevel()).isEqualTo(LogLevel.ERROR);
        assertThat(parse("--zap-log-level=1").logLevel()).isEqualTo(LogLevel.DEBUG);
        assertThat(parse("--zap-log-level=2").logLevel()).isEqualTo(LogLevel.TRACE);
        assertThat(warnings("--zap-log-level=debug")).isEmpty();
    }

    @Test
    void aBadZapLogLevelIsAUsageErrorNamingTheFlagAndItsValues() {
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err));
        cmd.setOut(new PrintWriter(new StringWriter()));
        assertThat(cmd.execute("--zap-log-level=verbose", "--no-leader-elect")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("--zap-log-level must be debug, info, warn, error, dpanic, panic, fatal or an integer of 1"
                        + " or more (got \"verbose\")");
    }

    @Test
    void helpListsTheUpstreamFlags() {
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine().setOut(new PrintWriter(out));
        assertThat(cmd.execute("--help")).isZero();
        assertThat(out.toString())
                .contains(
                        "--enable-tracing",
                        "--health-probe-bind-address",
                        "--sandbox-concurrent-workers",
                        "--zap-devel",
                        "--zap-log-level");
    }
}
