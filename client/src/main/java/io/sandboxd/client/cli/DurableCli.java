package io.sandboxd.client.cli;

import com.google.protobuf.ByteString;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.client.DurableProcesses;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** What the durable-process verbs share: the process reference, exit codes, JSON. */
final class DurableCli {
    static final JsonMapper JSON = JsonMapper.builder().build();

    private DurableCli() {}

    /** {@code ID} or {@code --tag T}, exactly one of them; a usage error otherwise. */
    static ProcessRef ref(CommandSpec spec, String id, String tag) {
        if ((id == null) == (tag == null)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    id == null ? "a process ID or --tag T is required" : "give a process ID or --tag T, not both");
        }
        if (tag != null) {
            if (tag.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tag must not be empty");
            }
            return DurableProcesses.byTag(tag);
        }
        if (id.isEmpty()
                || id.length() > 10
                || !id.chars().allMatch(Character::isDigit)
                || Long.parseLong(id) > Integer.MAX_VALUE) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "process ID must be a number, got \"" + id + "\" (use --tag for a tag)");
        }
        return DurableProcesses.byId(Integer.parseInt(id));
    }

    /** {@code STREAM_STDOUT} → {@code stdout}; unknown values (a newer daemon) by their name or number. */
    static String enumName(Enum<?> e, int number, String prefix) {
        String n = e.name();
        if (n.equals("UNRECOGNIZED")) {
            return Integer.toString(number);
        }
        if (n.startsWith(prefix)) {
            n = n.substring(prefix.length());
        }
        return n.toLowerCase(Locale.ROOT);
    }

    static String stream(Output o) {
        return enumName(o.getStream(), o.getStreamValue(), "STREAM_");
    }

    static String stream(Gap g) {
        return enumName(g.getStream(), g.getStreamValue(), "STREAM_");
    }

    static String gapReason(Gap g) {
        return enumName(g.getReason(), g.getReasonValue(), "GAP_REASON_");
    }

    /** One event as one JSON object (one line). */
    static String toJson(AttachEvent ev) {
        ObjectNode n = JSON.createObjectNode();
        switch (ev.getEventCase()) {
            case STARTED ->
                n.put("event", "started")
                        .put("process_id", ev.getStarted().getProcessId())
                        .put("tag", ev.getStarted().getTag());
            case OUTPUT -> {
                Output o = ev.getOutput();
                n.put("event", "output")
                        .put("stream", stream(o))
                        .put("offset", o.getOffset())
                        .put(
                                "bytes",
                                Base64.getEncoder().encodeToString(o.getData().toByteArray()));
            }
            case GAP -> {
                Gap g = ev.getGap();
                n.put("event", "gap")
                        .put("stream", stream(g))
                        .put("offset", g.getOffset())
                        .put("length", g.getLength())
                        .put("reason", gapReason(g));
            }
            case HEARTBEAT ->
                n.put("event", "heartbeat")
                        .put("stdout_written", ev.getHeartbeat().getStdoutWritten())
                        .put("stderr_written", ev.getHeartbeat().getStderrWritten());
            case EXIT -> {
                n.put("event", "exit");
                exit(n, ev.getExit());
            }
            default -> n.put("event", "unknown");
        }
        return JSON.writeValueAsString(n);
    }

    static void exit(ObjectNode n, ExitRecord r) {
        n.put("kind", enumName(r.getKind(), r.getKindValue(), "EXIT_KIND_"))
                .put("exit_code", r.getExitCode())
                .put("signal", r.getSignal())
                .put("timed_out", r.getTimedOut())
                .put("shell_exit_code", DurableProcesses.shellExitCode(r));
        if (r.getEndTimeUnixMillis() > 0) {
            n.put("end_time", Instant.ofEpochMilli(r.getEndTimeUnixMillis()).toString());
        }
        n.put("stdout_written", r.getStdoutWritten()).put("stderr_written", r.getStderrWritten());
    }

    static ObjectNode toJson(ProcessInfo p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", p.getProcessId()).put("tag", p.getTag());
        tools.jackson.databind.node.ArrayNode cmd = n.putArray("command");
        p.getCommandList().forEach(cmd::add);
        n.put("pty", p.getPty())
                .put("state", state(p))
                .put("detached", p.getDetached())
                .put("v1_start", p.getV1Start());
        if (p.getPid() > 0) {
            n.put("pid", p.getPid()).put("pgid", p.getPgid());
        }
        if (p.getStartTimeUnixMillis() > 0) {
            n.put("start_time", Instant.ofEpochMilli(p.getStartTimeUnixMillis()).toString());
        }
        if (p.getEndTimeUnixMillis() > 0) {
            n.put("end_time", Instant.ofEpochMilli(p.getEndTimeUnixMillis()).toString());
        }
        if (p.hasExit()) {
            exit(n.putObject("exit"), p.getExit());
        }
        n.put("stdout_written", p.getStdoutWritten()).put("stderr_written", p.getStderrWritten());
        return n;
    }

    static String state(ProcessInfo p) {
        return enumName(p.getState(), p.getStateValue(), "PROCESS_STATE_");
    }

    static String text(ByteString b) {
        return b.toStringUtf8();
    }
}
