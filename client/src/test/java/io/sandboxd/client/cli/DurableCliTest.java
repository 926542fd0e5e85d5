package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.GapReason;
import io.sandboxd.api.durable.v1alpha1.Heartbeat;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.DurableProcesses;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The durable verbs' pieces without a daemon: JSON of events (unknown enum values too), exit codes, signals. */
class DurableCliTest {
    static final JsonMapper JSON = JsonMapper.builder().build();

    static JsonNode json(AttachEvent ev) {
        String line = DurableCli.toJson(ev);
        assertThat(line).doesNotContain("\n");
        return JSON.readTree(line);
    }

    @Test
    void outputIsStreamOffsetAndBase64Bytes() {
        JsonNode n = json(AttachEvent.newBuilder()
                .setOutput(Output.newBuilder()
                        .setStream(Stream.STREAM_STDERR)
                        .setOffset(12)
                        .setData(ByteString.copyFrom(new byte[] {0, (byte) 0xff, 'a'})))
                .build());
        assertThat(n.get("event").asString()).isEqualTo("output");
        assertThat(n.get("stream").asString()).isEqualTo("stderr");
        assertThat(n.get("offset").asLong()).isEqualTo(12);
        assertThat(n.get("bytes").asString()).isEqualTo("AP9h");
    }

    @Test
    void gapsNameTheirReasonAndAnUnknownReasonByItsNumber() {
        JsonNode n = json(AttachEvent.newBuilder()
                .setGap(Gap.newBuilder()
                        .setStream(Stream.STREAM_STDOUT)
                        .setOffset(5)
                        .setLength(100)
                        .setReason(GapReason.GAP_REASON_RETENTION))
                .build());
        assertThat(n.get("reason").asString()).isEqualTo("retention");
        assertThat(n.get("length").asLong()).isEqualTo(100);
        // a value this client does not know (a newer daemon's)
        JsonNode u = json(AttachEvent.newBuilder()
                .setGap(Gap.newBuilder().setStreamValue(7).setReasonValue(99))
                .build());
        assertThat(u.get("reason").asString()).isEqualTo("99");
        assertThat(u.get("stream").asString()).isEqualTo("7");
    }

    @Test
    void exitAndHeartbeat() {
        JsonNode e = json(AttachEvent.newBuilder()
                .setExit(ExitRecord.newBuilder()
                        .setKind(ExitKind.EXIT_KIND_SIGNALED)
                        .setSignal(9)
                        .setExitCode(137)
                        .setEndTimeUnixMillis(1000))
                .build());
        assertThat(e.get("event").asString()).isEqualTo("exit");
        assertThat(e.get("kind").asString()).isEqualTo("signaled");
        assertThat(e.get("shell_exit_code").asInt()).isEqualTo(137);
        assertThat(e.get("end_time").asString()).isEqualTo("1970-01-01T00:00:01Z");
        JsonNode h = json(AttachEvent.newBuilder()
                .setHeartbeat(Heartbeat.newBuilder().setStdoutWritten(3))
                .build());
        assertThat(h.get("event").asString()).isEqualTo("heartbeat");
        assertThat(h.get("stdout_written").asLong()).isEqualTo(3);
        assertThat(json(AttachEvent.getDefaultInstance()).get("event").asString())
                .isEqualTo("unknown");
    }

    @Test
    void shellExitCodes() {
        assertThat(DurableProcesses.shellExitCode(ExitRecord.newBuilder()
                        .setKind(ExitKind.EXIT_KIND_EXITED)
                        .setExitCode(3)
                        .build()))
                .isEqualTo(3);
        assertThat(DurableProcesses.shellExitCode(ExitRecord.newBuilder()
                        .setKind(ExitKind.EXIT_KIND_SIGNALED)
                        .setSignal(15)
                        .build()))
                .isEqualTo(143);
        assertThat(DurableProcesses.shellExitCode(ExitRecord.newBuilder()
                        .setKind(ExitKind.EXIT_KIND_TIMED_OUT)
                        .setSignal(9)
                        .build()))
                .isEqualTo(124);
        assertThat(DurableProcesses.shellExitCode(ExitRecord.newBuilder()
                        .setKindValue(99)
                        .setTimedOut(true)
                        .build()))
                .isEqualTo(124);
        assertThat(DurableProcesses.shellExitCode(
                        ExitRecord.newBuilder().setKindValue(99).setExitCode(-9).build()))
                .isEqualTo(137);
    }

    @Test
    void signalsAndPsTable() {
        assertThat(KillCommand.parseSignal("int")).isEqualTo(Signal.SIGNAL_SIGINT);
        assertThat(KillCommand.parseSignal("SIGTERM")).isEqualTo(Signal.SIGNAL_SIGTERM);
        assertThat(KillCommand.parseSignal("9")).isEqualTo(Signal.SIGNAL_SIGKILL);
        assertThat(KillCommand.parseSignal("HUP")).isNull();
        String t = PsCommand.table(List.of(
                ProcessInfo.newBuilder()
                        .setProcessId(42)
                        .setTag("build")
                        .addCommand("make")
                        .setState(ProcessState.PROCESS_STATE_TIMED_OUT)
                        .setExit(ExitRecord.newBuilder().setTimedOut(true))
                        .build(),
                ProcessInfo.newBuilder()
                        .setProcessId(43)
                        .setStateValue(9)
                        .setPid(1234)
                        .addCommand("sleep")
                        .addCommand("1")
                        .build()));
        assertThat(t.lines()).hasSize(3);
        assertThat(t.lines().toList().get(1))
                .startsWith("42 ")
                .contains("build")
                .contains("timed-out")
                .contains("124")
                .endsWith("make");
        assertThat(t.lines().toList().get(2))
                .startsWith("43 ")
                .contains(" 9 ")
                .contains("1234")
                .endsWith("sleep 1");
    }
}
