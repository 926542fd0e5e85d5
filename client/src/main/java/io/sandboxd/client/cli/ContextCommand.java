package io.sandboxd.client.cli;

import io.sandboxd.api.GoDuration;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.ExecutionStatus;
import io.sandboxd.api.code.v1alpha1.MimeData;
import io.sandboxd.api.code.v1alpha1.RichOutput;
import io.sandboxd.client.CodeContexts;
import io.sandboxd.client.SandboxdClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code context}: code contexts (runtime-contract §4.4): create, exec, interrupt, restart, rm, ls. */
@CommandLine.Command(
        name = "context",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Stateful code contexts (Jupyter kernels run by the daemon): create one, run code in it with "
                + "rich outputs, interrupt, restart, remove, list.",
        subcommands = {
            ContextCommand.Create.class,
            ContextCommand.Exec.class,
            ContextCommand.Interrupt.class,
            ContextCommand.Restart.class,
            ContextCommand.Rm.class,
            ContextCommand.Ls.class
        })
final class ContextCommand implements Callable<Integer> {
    static final JsonMapper JSON = JsonMapper.builder().build();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "missing verb (create, exec, interrupt, restart, rm, ls)");
    }

    @CommandLine.Command(
            name = "create",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = "Starts a kernel and prints the context's id.")
    static final class Create implements Callable<Integer> {
        @Mixin
        ConnectionOptions conn;

        @Option(
                names = "--language",
                paramLabel = "L",
                description = "The kernel's language (default python); the daemon names the installed ones if "
                        + "there is none for it.")
        String language;

        @Override
        public Integer call() {
            try (SandboxdClient client = conn.client()) {
                System.out.println(client.code().create(language).getId());
            }
            return 0;
        }
    }

    @CommandLine.Command(
            name = "exec",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = {
                "Runs CODE (\"-\": read from stdin) in the context and prints its outputs as they come: stdout and "
                        + "stderr text, text/plain results, errors with their traceback on stderr. Each output "
                        + "that is not text (an image, or a bundle without text/plain) is written to a file in "
                        + "the current directory, whose name is printed. --json: one JSON object per output "
                        + "instead, binary data base64-encoded.",
                "Exit code: 0 when the execution's status is ok, 1 otherwise (error, aborted, timed out, "
                        + "kernel died)."
            })
    static final class Exec implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        DaemonOptions conn;

        @Option(names = "--json", description = "One JSON object per output line (see the README).")
        boolean json;

        @Option(
                names = "--timeout",
                paramLabel = "DUR",
                description = "The daemon interrupts the code after this long (Go syntax: 30s, 2m) and reports "
                        + "timed out.")
        String timeout;

        @Parameters(index = "0", paramLabel = "ID", description = "The context.")
        String id;

        @Parameters(index = "1", paramLabel = "CODE", description = "The code, or - for stdin.")
        String code;

        @Override
        public Integer call() throws IOException {
            Duration t = null;
            if (timeout != null) {
                try {
                    t = GoDuration.parse(timeout);
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
                }
                if (t.isZero()) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be above 0");
                }
            }
            String source = code.equals("-") ? readAll(System.in) : code;
            ExecutionStatus status = null;
            OutputPrinter printer = new OutputPrinter(id, System.out, System.err, Path.of(""));
            try (SandboxdClient client = conn.client();
                    CodeContexts.Execution e = client.code().execute(id, source, t)) {
                for (ExecuteEvent ev; (ev = e.next()) != null; ) {
                    if (json) {
                        System.out.println(JSON.writeValueAsString(toJson(ev)));
                    } else {
                        printer.print(ev);
                    }
                    if (ev.hasStatus()) {
                        status = ev.getStatus();
                    }
                }
            }
            System.out.flush();
            return status != null && status.getState() == ExecutionState.EXECUTION_STATE_OK ? 0 : 1;
        }

        private static String readAll(InputStream in) throws IOException {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @CommandLine.Command(
            name = "interrupt",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = "Interrupts the context's running execution.")
    static final class Interrupt implements Callable<Integer> {
        @Mixin
        ConnectionOptions conn;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            try (SandboxdClient client = conn.client()) {
                client.code().interrupt(id);
            }
            return 0;
        }
    }

    @CommandLine.Command(
            name = "restart",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = "Restarts the context's kernel (state cleared, same id).")
    static final class Restart implements Callable<Integer> {
        @Mixin
        ConnectionOptions conn;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            try (SandboxdClient client = conn.client()) {
                client.code().restart(id);
            }
            return 0;
        }
    }

    @CommandLine.Command(
            name = "rm",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = "Removes the context and ends its kernel.")
    static final class Rm implements Callable<Integer> {
        @Mixin
        ConnectionOptions conn;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            try (SandboxdClient client = conn.client()) {
                client.code().delete(id);
            }
            return 0;
        }
    }

    @CommandLine.Command(
            name = "ls",
            mixinStandardHelpOptions = true,
            versionProvider = VersionInfo.class,
            description = "Lists the contexts: id, language, state, kernel pid and RSS, queued executions, last use.")
    static final class Ls implements Callable<Integer> {
        @Mixin
        ConnectionOptions conn;

        @Option(
                names = "--json",
                description = "One JSON object {\"contexts\":[{\"id\",\"language\",\"kernel\",\"state\",\"created\","
                        + "\"last_used\",\"kernel_pid\",\"kernel_rss_bytes\",\"queued\",\"bad_signatures\",\"cwd\"}]}.")
        boolean json;

        @Override
        public Integer call() {
            List<ContextInfo> cs;
            try (SandboxdClient client = conn.client()) {
                cs = client.code().list();
            }
            if (json) {
                ObjectNode root = JSON.createObjectNode();
                ArrayNode a = root.putArray("contexts");
                for (ContextInfo c : cs) {
                    a.addObject()
                            .put("id", c.getId())
                            .put("language", c.getLanguage())
                            .put("kernel", c.getKernel())
                            .put("state", state(c))
                            .put(
                                    "created",
                                    Instant.ofEpochMilli(c.getCreatedUnixMillis())
                                            .toString())
                            .put(
                                    "last_used",
                                    Instant.ofEpochMilli(c.getLastUsedUnixMillis())
                                            .toString())
                            .put("kernel_pid", c.getKernelPid())
                            .put("kernel_rss_bytes", c.getKernelRssBytes())
                            .put("queued", c.getQueued())
                            .put("bad_signatures", c.getBadSignatures())
                            .put("cwd", c.getCwd());
                }
                System.out.println(JSON.writeValueAsString(root));
            } else {
                StringBuilder b = new StringBuilder(String.format(
                        "%-22s %-10s %-8s %-8s %-9s %-6s %s",
                        "ID", "LANGUAGE", "STATE", "PID", "RSS", "QUEUED", "LAST USED"));
                for (ContextInfo c : cs) {
                    b.append('\n')
                            .append(String.format(
                                    "%-22s %-10s %-8s %-8s %-9s %-6d %s",
                                    c.getId(),
                                    c.getLanguage(),
                                    state(c),
                                    c.getKernelPid() > 0 ? Long.toString(c.getKernelPid()) : "-",
                                    c.getKernelRssBytes() > 0 ? (c.getKernelRssBytes() >> 20) + "MiB" : "-",
                                    c.getQueued(),
                                    Instant.ofEpochMilli(c.getLastUsedUnixMillis())));
                }
                System.out.println(b);
            }
            System.out.flush();
            return 0;
        }
    }

    /** {@code CONTEXT_STATE_IDLE} → {@code idle}. */
    static String state(ContextInfo c) {
        return DurableCli.enumName(c.getState(), c.getStateValue(), "CONTEXT_STATE_");
    }

    static String state(ExecutionStatus s) {
        return DurableCli.enumName(s.getState(), s.getStateValue(), "EXECUTION_STATE_")
                .replace('_', ' ');
    }

    /** One event as one JSON object; MIME bundles as Jupyter writes them (binary data base64). */
    static ObjectNode toJson(ExecuteEvent ev) {
        ObjectNode n = JSON.createObjectNode();
        switch (ev.getEventCase()) {
            case STREAM ->
                n.put("type", "stream")
                        .put(
                                "name",
                                DurableCli.enumName(
                                        ev.getStream().getName(), ev.getStream().getNameValue(), "STREAM_NAME_"))
                        .put("text", ev.getStream().getText());
            case RICH -> {
                RichOutput r = ev.getRich();
                n.put("type", DurableCli.enumName(r.getKind(), r.getKindValue(), "RICH_OUTPUT_KIND_"));
                ObjectNode data = n.putObject("data");
                for (MimeData m : r.getDataList()) {
                    switch (m.getValueCase()) {
                        case BINARY ->
                            data.put(
                                    m.getMimeType(),
                                    Base64.getEncoder()
                                            .encodeToString(m.getBinary().toByteArray()));
                        case JSON -> data.set(m.getMimeType(), parse(m.getJson()));
                        default -> data.put(m.getMimeType(), m.getText());
                    }
                }
                n.set("metadata", parse(r.getMetadataJson().isEmpty() ? "{}" : r.getMetadataJson()));
                if (r.getExecutionCount() > 0) {
                    n.put("execution_count", r.getExecutionCount());
                }
                if (!r.getDisplayId().isEmpty()) {
                    n.put("display_id", r.getDisplayId());
                }
            }
            case ERROR -> {
                n.put("type", "error")
                        .put("name", ev.getError().getName())
                        .put("value", ev.getError().getValue());
                ArrayNode tb = n.putArray("traceback");
                ev.getError().getTracebackList().forEach(tb::add);
            }
            case CLEAR ->
                n.put("type", "clear_output").put("wait", ev.getClear().getWait());
            case TRUNCATED ->
                n.put("type", "truncated")
                        .put("dropped_outputs", ev.getTruncated().getDroppedOutputs())
                        .put("dropped_bytes", ev.getTruncated().getDroppedBytes());
            case STATUS ->
                n.put("type", "status")
                        .put(
                                "state",
                                DurableCli.enumName(
                                        ev.getStatus().getState(),
                                        ev.getStatus().getStateValue(),
                                        "EXECUTION_STATE_"))
                        .put("execution_count", ev.getStatus().getExecutionCount())
                        .put("message", ev.getStatus().getMessage())
                        .put("oversized_messages", ev.getStatus().getOversizedMessages());
            default -> n.put("type", "unknown");
        }
        return n;
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (RuntimeException e) {
            return JSON.getNodeFactory().textNode(json);
        }
    }

    /** The human form of the events: text as text, everything else into files it names. */
    static final class OutputPrinter {
        private final String context;
        private final PrintStream out;
        private final PrintStream err;
        private final Path dir;

        OutputPrinter(String context, PrintStream out, PrintStream err, Path dir) {
            this.context = context;
            this.out = out;
            this.err = err;
            this.dir = dir;
        }

        void print(ExecuteEvent ev) throws IOException {
            switch (ev.getEventCase()) {
                case STREAM -> {
                    PrintStream to = ev.getStream().getNameValue() == 2 ? err : out;
                    to.print(ev.getStream().getText());
                    to.flush();
                }
                case RICH -> rich(ev.getRich());
                case ERROR -> {
                    List<String> tb = ev.getError().getTracebackList();
                    if (tb.isEmpty()) {
                        err.println(
                                ev.getError().getName() + ": " + ev.getError().getValue());
                    } else {
                        tb.forEach(err::println);
                    }
                    err.flush();
                }
                case TRUNCATED ->
                    err.println(
                            "sandboxd-cli: context exec: " + ev.getTruncated().getDroppedBytes() + " bytes in "
                                    + ev.getTruncated().getDroppedOutputs()
                                    + " outputs dropped from the middle (--code-output-limit)");
                case STATUS -> {
                    ExecutionStatus s = ev.getStatus();
                    if (s.getState() != ExecutionState.EXECUTION_STATE_OK
                            && s.getState() != ExecutionState.EXECUTION_STATE_ERROR) {
                        err.println("sandboxd-cli: context exec: " + state(s)
                                + (s.getMessage().isEmpty() ? "" : ": " + s.getMessage()));
                    } else if (!s.getMessage().isEmpty()) {
                        err.println("sandboxd-cli: context exec: " + s.getMessage());
                    }
                    err.flush();
                }
                default -> {
                    // clear_output: nothing to clear on a terminal that scrolls
                }
            }
        }

        private void rich(RichOutput r) throws IOException {
            MimeData plain = null;
            boolean wrote = false;
            for (MimeData m : r.getDataList()) {
                if (m.getMimeType().equals("text/plain") && m.hasText()) {
                    plain = m;
                } else if (m.hasBinary()) {
                    save(m, m.getBinary().toByteArray());
                    wrote = true;
                }
            }
            if (wrote) {
                return;
            }
            if (plain != null) {
                out.println(plain.getText());
                out.flush();
            } else if (r.getDataCount() > 0) {
                MimeData m = r.getData(0);
                save(m, (m.hasJson() ? m.getJson() : m.getText()).getBytes(StandardCharsets.UTF_8));
            }
        }

        private void save(MimeData m, byte[] bytes) throws IOException {
            // A new file each time (never overwriting one): <context>-<random><extension>.
            Path f = Files.createTempFile(dir, context + "-", extension(m.getMimeType()));
            Files.write(f, bytes);
            out.println("[" + m.getMimeType() + ", " + bytes.length + " bytes: " + f + "]");
            out.flush();
        }

        static String extension(String mime) {
            String t = mime.toLowerCase(Locale.ROOT);
            return switch (t) {
                case "image/png" -> ".png";
                case "image/jpeg" -> ".jpg";
                case "image/gif" -> ".gif";
                case "image/svg+xml" -> ".svg";
                case "text/html" -> ".html";
                case "application/pdf" -> ".pdf";
                case "application/json" -> ".json";
                case "text/latex" -> ".tex";
                case "text/markdown" -> ".md";
                default -> ".bin";
            };
        }
    }
}
