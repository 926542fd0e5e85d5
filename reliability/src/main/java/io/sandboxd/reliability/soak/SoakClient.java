package io.sandboxd.reliability.soak;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.Status;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.RestPaths;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * One soak client: loops over a weighted mix of process and file operations until told to stop,
 * checking every answer against the contract and against its own model of the files it wrote.
 */
final class SoakClient implements Runnable {
    private static final Duration RPC_DEADLINE = Duration.ofSeconds(60);
    private static final Duration STREAM_DEADLINE = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Op(String name, int weight, Action action) {}

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** Unary calls with {@link #RPC_DEADLINE}, Start streams with {@link #STREAM_DEADLINE}. */
    private final SandboxdClient calls;

    private final SandboxdClient streams;
    private final Optional<String> token;
    private final Tally tally;
    private final SharedFiles shared;
    private final FileModel files;
    private final Random rng;
    private final List<Op> ops;
    private final int totalWeight;
    private volatile BooleanSupplier stop = () -> true;

    /** {@code client} may be shared with other soak clients; {@code token} is the one it was built with. */
    SoakClient(String name, SandboxdClient client, Optional<String> token, Tally tally, SharedFiles shared, long seed) {
        this.calls = client.withCallTimeout(RPC_DEADLINE);
        this.streams = calls.withStreamDeadline(STREAM_DEADLINE);
        this.token = token;
        this.tally = tally;
        this.shared = shared;
        this.files = new FileModel("soak/" + name);
        this.rng = new Random(seed);
        this.ops = List.of(
                new Op("execute", 18, this::execute),
                new Op("execute-lines", 4, this::executeLines),
                new Op("execute-deadline", 2, this::executeDeadline),
                new Op("start-pipe-stdin", 10, this::startPipe),
                new Op("start-pty", 5, this::startPty),
                new Op("start-signal", 5, this::startSignal),
                new Op("start-cancel", 3, this::startCancel),
                new Op("invalid-request", 4, this::invalidRequest),
                new Op("file-put", 15, this::put),
                new Op("file-get", 15, this::get),
                new Op("file-delete", 5, this::delete),
                new Op("dir-list", 8, this::list),
                new Op("shared-put", 3, this::sharedPut),
                new Op("shared-get", 4, this::sharedGet),
                new Op("file-via-exec", 3, this::fileViaExec));
        this.totalWeight = ops.stream().mapToInt(Op::weight).sum();
    }

    /** Runs until {@code stop} says so. Not thread-safe: one thread per client. */
    void runUntil(BooleanSupplier stop) {
        this.stop = stop;
        run();
    }

    @Override
    public void run() {
        while (!stop.getAsBoolean()) {
            int pick = rng.nextInt(totalWeight);
            for (Op op : ops) {
                pick -= op.weight();
                if (pick < 0) {
                    runOp(op.name(), op.action());
                    break;
                }
            }
        }
    }

    /** Checks every file and directory this client owns against its model. */
    void verifyAll() {
        for (String name : FileModel.NAMES) {
            runOp("final-verify-file", () -> getAndCheck(name));
        }
        for (String dir : FileModel.DIRS) {
            runOp("final-verify-dir", () -> listAndCheck(dir));
        }
    }

    private void runOp(String name, Action action) {
        tally.op(name);
        try {
            action.run();
        } catch (WrongAnswer e) {
            tally.error(name, e.getMessage());
        } catch (GrpcCallException e) {
            tally.error(name, "unexpected status " + e.status());
        } catch (TimeoutException e) {
            tally.error(name, "timed out: " + e.getMessage());
        } catch (Exception e) {
            tally.error(name, e.toString());
        }
    }

    // ---- process operations ----

    private void execute() throws Exception {
        String token = randomWord(1 + rng.nextInt(40));
        String fromEnv = randomWord(1 + rng.nextInt(10));
        int code = rng.nextInt(256);
        ExecResult r = execute(
                ProcessConfig.newBuilder()
                        .addAllCommand(List.of(
                                "sh",
                                "-c",
                                "printf %s \"$1$SOAK_V\"; printf e%s \"$1\" >&2; exit \"$2\"",
                                "sh",
                                token,
                                Integer.toString(code)))
                        .putEnvVars("SOAK_V", fromEnv)
                        .build(),
                calls);
        WrongAnswer.check(r.exitCode() == code, "exit " + r.exitCode() + ", want " + code);
        WrongAnswer.check(
                r.stdoutText().equals(token + fromEnv),
                "stdout " + quote(r.stdoutText()) + ", want " + quote(token + fromEnv));
        WrongAnswer.check(
                r.stderrText().equals("e" + token), "stderr " + quote(r.stderrText()) + ", want " + quote("e" + token));
    }

    private void executeLines() throws Exception {
        int lines = 500 + rng.nextInt(2500);
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            want.append("line ").append(i).append('\n');
        }
        ExecResult r = execute(
                ProcessConfig.newBuilder()
                        .addAllCommand(List.of(
                                "sh",
                                "-c",
                                "i=0; while [ $i -lt $1 ]; do echo \"line $i\"; i=$((i+1)); done",
                                "sh",
                                Integer.toString(lines)))
                        .build(),
                calls);
        WrongAnswer.check(r.exitCode() == 0, "exit " + r.exitCode());
        WrongAnswer.check(
                r.stdoutText().contentEquals(want),
                "stdout of " + lines + " lines differs (" + r.stdout().size() + " bytes, want " + want.length() + ")");
        WrongAnswer.check(r.stderr().isEmpty(), "stderr " + quote(r.stderrText()));
    }

    private void executeDeadline() throws Exception {
        try {
            execute(
                    ProcessConfig.newBuilder()
                            .addAllCommand(List.of("sleep", "120"))
                            .build(),
                    calls.withCallTimeout(Duration.ofMillis(300)));
            throw new WrongAnswer("sleep 120 under a 300 ms deadline returned normally");
        } catch (GrpcCallException e) {
            WrongAnswer.check(
                    e.code() == Status.Code.DEADLINE_EXCEEDED, "status " + e.status() + ", want DEADLINE_EXCEEDED");
        }
    }

    /** Execute under {@code via}'s call timeout. */
    private ExecResult execute(ProcessConfig config, SandboxdClient via) {
        tally.request();
        return via.execute(ExecuteRequest.newBuilder().setConfig(config).build());
    }

    private void startPipe() throws Exception {
        StartRecorder s = new StartRecorder();
        int pid = awaitInit(start(
                StartRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addCommand("cat"))
                        .build(),
                s));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        int writes = 1 + rng.nextInt(5);
        for (int i = 0; i < writes; i++) {
            byte[] chunk = new byte[1 + rng.nextInt(8192)];
            rng.nextBytes(chunk);
            sent.writeBytes(chunk);
            writeStdin(WriteStdinRequest.newBuilder()
                    .setProcessId(pid)
                    .setInput(ByteString.copyFrom(chunk))
                    .build());
        }
        writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setEof(Empty.getDefaultInstance())
                .build());
        Status st = awaitEnd(s, STREAM_DEADLINE);
        WrongAnswer.check(st.isOk(), "stream status " + st);
        WrongAnswer.check(s.violations().isEmpty(), "stream violations " + s.violations());
        WrongAnswer.check(Integer.valueOf(0).equals(s.exitCode()), "exit " + s.exitCode());
        WrongAnswer.check(
                java.util.Arrays.equals(s.stdout(), sent.toByteArray()),
                "cat echoed " + s.stdoutBytes() + " bytes that differ from the " + sent.size() + " sent");
        try {
            writeStdin(WriteStdinRequest.newBuilder()
                    .setProcessId(pid)
                    .setInput(ByteString.copyFromUtf8("x"))
                    .build());
            throw new WrongAnswer("WriteStdin after the stream ended was accepted");
        } catch (GrpcCallException e) {
            WrongAnswer.check(
                    e.code() == Status.Code.NOT_FOUND, "WriteStdin after end: " + e.status() + ", want NOT_FOUND");
        }
    }

    private void startPty() throws Exception {
        int rows = 10 + rng.nextInt(50);
        int cols = 20 + rng.nextInt(150);
        StartRecorder s = new StartRecorder();
        int pid = awaitInit(start(
                StartRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder()
                                .addAllCommand(List.of("sh", "-c", "stty size; read x; echo \"r:$x\"")))
                        .setPty(PTY.newBuilder().setRows(rows).setCols(cols))
                        .build(),
                s));
        String resized = null;
        if (rng.nextBoolean()) {
            int rows2 = 10 + rng.nextInt(50);
            int cols2 = 20 + rng.nextInt(150);
            tally.request();
            calls.resizeTty(pid, cols2, rows2);
            resized = rows2 + " " + cols2;
        }
        String word = randomWord(8);
        writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(pid)
                .setInput(ByteString.copyFromUtf8(word + "\n"))
                .build());
        Status st = awaitEnd(s, STREAM_DEADLINE);
        String out = s.stdoutText();
        WrongAnswer.check(st.isOk(), "stream status " + st);
        WrongAnswer.check(s.violations().isEmpty(), "stream violations " + s.violations());
        WrongAnswer.check(Integer.valueOf(0).equals(s.exitCode()), "exit " + s.exitCode() + ", output " + quote(out));
        WrongAnswer.check(
                out.contains(rows + " " + cols) || (resized != null && out.contains(resized)),
                "stty size printed " + quote(out) + ", want " + rows + " " + cols
                        + (resized == null ? "" : " or " + resized));
        WrongAnswer.check(out.contains("r:" + word), "pty output " + quote(out) + " lacks r:" + word);
    }

    private void startSignal() throws Exception {
        Signal[] choices = {Signal.SIGNAL_SIGINT, Signal.SIGNAL_SIGTERM, Signal.SIGNAL_SIGKILL};
        Signal sig = choices[rng.nextInt(choices.length)];
        StartRecorder s = new StartRecorder();
        int pid = awaitInit(start(
                StartRequest.newBuilder()
                        .setConfig(ProcessConfig.newBuilder().addAllCommand(List.of("sleep", "120")))
                        .build(),
                s));
        tally.request();
        calls.sendSignal(pid, sig);
        Status st = awaitEnd(s, STREAM_DEADLINE);
        WrongAnswer.check(st.isOk(), "stream status " + st);
        WrongAnswer.check(s.violations().isEmpty(), "stream violations " + s.violations());
        int want = 128 + sig.getNumber();
        WrongAnswer.check(
                Integer.valueOf(want).equals(s.exitCode()), sig + " gave exit " + s.exitCode() + ", want " + want);
    }

    private void startCancel() throws Exception {
        StartRecorder s = new StartRecorder();
        RemoteProcess p = start(
                StartRequest.newBuilder()
                        .setConfig(
                                ProcessConfig.newBuilder().addAllCommand(List.of("sh", "-c", "sleep 120 & sleep 120")))
                        .build(),
                s);
        awaitInit(p);
        p.cancel();
        Status st = awaitEnd(s, RPC_DEADLINE);
        WrongAnswer.check(st.getCode() == Status.Code.CANCELLED, "cancelled stream ended with " + st);
    }

    private void invalidRequest() throws Exception {
        switch (rng.nextInt(4)) {
            case 0 ->
                expectStatus(
                        Status.Code.INVALID_ARGUMENT,
                        "Execute without command",
                        () -> execute(ProcessConfig.getDefaultInstance(), calls));
            case 1 ->
                expectStatus(Status.Code.NOT_FOUND, "SendSignal to an unknown id", () -> {
                    tally.request();
                    calls.sendSignal(SendSignalRequest.newBuilder()
                            .setProcessId(Integer.MAX_VALUE - rng.nextInt(1000))
                            .setSignal(Signal.SIGNAL_SIGTERM)
                            .build());
                });
            case 2 ->
                expectStatus(
                        Status.Code.NOT_FOUND,
                        "Execute of a missing binary",
                        () -> execute(
                                ProcessConfig.newBuilder()
                                        .addCommand("no-such-binary-" + randomWord(6))
                                        .build(),
                                calls));
            default -> {
                tally.request();
                HttpResponse<byte[]> r = http(calls, token, "GET", "/v1/files/..%2F..%2Fetc%2Fpasswd", null);
                WrongAnswer.check(r.statusCode() == 403, "GET ../../etc/passwd gave " + r.statusCode() + ", want 403");
                checkErrorBody(r, "PERMISSION_DENIED");
            }
        }
    }

    private void expectStatus(Status.Code want, String what, Runnable call) throws WrongAnswer {
        try {
            call.run();
            throw new WrongAnswer(what + " succeeded, want " + want);
        } catch (GrpcCallException e) {
            WrongAnswer.check(e.code() == want, what + ": " + e.status() + ", want " + want);
        }
    }

    private RemoteProcess start(StartRequest request, StartRecorder recorder) {
        tally.request();
        return streams.start(request, recorder);
    }

    /** The process id. @throws GrpcCallException if the stream failed before its init event */
    private static int awaitInit(RemoteProcess p) throws TimeoutException {
        return p.awaitInit(RPC_DEADLINE)
                .orElseThrow(() -> new TimeoutException("no init event within " + RPC_DEADLINE));
    }

    /** The stream's final status. */
    private static Status awaitEnd(StartRecorder s, Duration timeout) throws TimeoutException {
        if (!s.awaitEnd(timeout)) {
            throw new TimeoutException("stream not ended within " + timeout + ": " + s.describe());
        }
        return s.status();
    }

    private void writeStdin(WriteStdinRequest request) {
        tally.request();
        calls.writeStdin(request);
    }

    // ---- file operations ----

    private void put() throws Exception {
        String name = pick(FileModel.NAMES);
        byte[] content = randomContent();
        tally.request();
        HttpResponse<byte[]> r = http("PUT", files.path(name), content);
        WrongAnswer.check(r.statusCode() == 204, "PUT " + files.path(name) + " gave " + r.statusCode() + " " + text(r));
        files.written(name, content);
    }

    private void get() throws Exception {
        getAndCheck(pick(FileModel.NAMES));
    }

    private void getAndCheck(String name) throws Exception {
        tally.request();
        HttpResponse<byte[]> r = http("GET", files.path(name), null);
        Optional<byte[]> want = files.content(name);
        if (want.isEmpty()) {
            WrongAnswer.check(r.statusCode() == 404, "GET of absent " + files.path(name) + " gave " + r.statusCode());
            checkErrorBody(r, "NOT_FOUND");
            return;
        }
        WrongAnswer.check(r.statusCode() == 200, "GET " + files.path(name) + " gave " + r.statusCode() + " " + text(r));
        WrongAnswer.check(
                java.util.Arrays.equals(r.body(), want.get()),
                "GET " + files.path(name) + " returned " + r.body().length + " bytes that differ from the "
                        + want.get().length + " last written");
    }

    private void delete() throws Exception {
        String name = pick(FileModel.NAMES);
        tally.request();
        HttpResponse<byte[]> r = http("DELETE", files.path(name), null);
        if (files.content(name).isPresent()) {
            WrongAnswer.check(
                    r.statusCode() == 204, "DELETE " + files.path(name) + " gave " + r.statusCode() + " " + text(r));
            files.deleted(name);
        } else {
            WrongAnswer.check(
                    r.statusCode() == 404, "DELETE of absent " + files.path(name) + " gave " + r.statusCode());
        }
    }

    private void list() throws Exception {
        listAndCheck(pick(FileModel.DIRS));
    }

    private void listAndCheck(String dir) throws Exception {
        tally.request();
        HttpResponse<byte[]> r = http("GET", files.path(dir), null);
        if (!files.dirExists(dir)) {
            WrongAnswer.check(
                    r.statusCode() == 404, "listing of absent " + files.path(dir) + " gave " + r.statusCode());
            return;
        }
        WrongAnswer.check(
                r.statusCode() == 200, "listing " + files.path(dir) + " gave " + r.statusCode() + " " + text(r));
        JsonNode entries = JSON.readTree(r.body()).get("entries");
        WrongAnswer.check(entries != null && entries.isArray(), "listing without entries array: " + text(r));
        List<String> names = new ArrayList<>();
        Map<String, Long> want = files.expectedEntries(dir);
        for (JsonNode e : entries) {
            String name = e.get("name").asString();
            names.add(name);
            Long size = want.get(name);
            if (size == null) {
                throw new WrongAnswer("listing " + files.path(dir) + " has unexpected entry " + quote(name));
            }
            String type = e.get("type").asString();
            if (size < 0) {
                WrongAnswer.check(type.equals("directory"), name + " listed as " + type);
            } else {
                WrongAnswer.check(
                        type.equals("file") && e.get("size").asLong() == size,
                        name + " listed as " + type + " of " + e.get("size") + " bytes, want file of " + size);
            }
        }
        WrongAnswer.check(
                names.equals(new ArrayList<>(want.keySet())),
                "listing " + files.path(dir) + " names " + names + ", want " + want.keySet());
    }

    private void sharedPut() throws Exception {
        int k = rng.nextInt(SharedFiles.COUNT);
        byte[] payload = randomContent();
        tally.request();
        HttpResponse<byte[]> r = http("PUT", SharedFiles.path(k), SharedFiles.seal(payload));
        WrongAnswer.check(
                r.statusCode() == 204, "PUT " + SharedFiles.path(k) + " gave " + r.statusCode() + " " + text(r));
        shared.markWritten(k);
    }

    private void sharedGet() throws Exception {
        int k = rng.nextInt(SharedFiles.COUNT);
        boolean mustExist = shared.written(k);
        tally.request();
        HttpResponse<byte[]> r = http("GET", SharedFiles.path(k), null);
        if (r.statusCode() == 404 && !mustExist) {
            return;
        }
        WrongAnswer.check(
                r.statusCode() == 200, "GET " + SharedFiles.path(k) + " gave " + r.statusCode() + " " + text(r));
        WrongAnswer.check(
                SharedFiles.intact(r.body()),
                "GET " + SharedFiles.path(k) + " returned a partial or mixed content of " + r.body().length + " bytes");
    }

    private void fileViaExec() throws Exception {
        List<String> names = files.fileNames();
        if (names.isEmpty()) {
            return;
        }
        String name = names.get(rng.nextInt(names.size()));
        byte[] content = files.content(name).orElseThrow();
        ExecResult r = execute(
                ProcessConfig.newBuilder()
                        .addAllCommand(List.of("sha256sum", name))
                        .setCwd(files.dir())
                        .build(),
                calls);
        String want = HexFormat.of().formatHex(SharedFiles.sha256(content));
        WrongAnswer.check(
                r.exitCode() == 0 && r.stdoutText().startsWith(want),
                "sha256sum of " + files.path(name) + " in cwd " + files.dir() + ": exit " + r.exitCode() + " "
                        + quote(r.stdoutText() + r.stderrText()) + ", want " + want);
    }

    private static void checkErrorBody(HttpResponse<byte[]> r, String code) throws WrongAnswer {
        String type = r.headers().firstValue("Content-Type").orElse("");
        WrongAnswer.check(
                type.startsWith("application/json"),
                "error " + r.statusCode() + " has Content-Type " + (type.isEmpty() ? "(none)" : type));
        try {
            JsonNode body = JSON.readTree(r.body());
            WrongAnswer.check(
                    code.equals(body.path("code").asString())
                            && !body.path("message").asString().isEmpty(),
                    "error body " + text(r) + ", want code " + code + " and a message");
        } catch (RuntimeException e) {
            throw new WrongAnswer("error body is not JSON: " + quote(text(r)));
        }
    }

    /**
     * One REST request as this client checks it: status, headers and body exactly as the daemon
     * sent them (the library's typed calls fold a status into success or an exception). Sent with
     * the library's HTTP client, a sandbox path encoded as the library encodes it.
     */
    private HttpResponse<byte[]> http(String method, String path, byte[] body)
            throws IOException, InterruptedException {
        return http(calls, token, method, RestPaths.files(path), body);
    }

    /** {@code method rawPathAndQuery} (already encoded) on {@code client}'s REST base and HTTP client. */
    static HttpResponse<byte[]> http(
            SandboxdClient client, Optional<String> token, String method, String rawPathAndQuery, byte[] body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(client.restBase() + rawPathAndQuery))
                .timeout(RPC_DEADLINE)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (body != null) {
            b.header("Content-Type", "application/octet-stream");
        }
        token.ifPresent(t -> b.header("Authorization", "Bearer " + t));
        return client.httpClient().send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> r) {
        return utf8(r.body());
    }

    // ---- helpers ----

    private byte[] randomContent() {
        int p = rng.nextInt(100);
        int size = p < 70
                ? rng.nextInt(4096)
                : p < 95 ? 4096 + rng.nextInt(124 * 1024) : 128 * 1024 + rng.nextInt(896 * 1024);
        byte[] b = new byte[size];
        rng.nextBytes(b);
        return b;
    }

    private String randomWord(int len) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            sb.append(alphabet.charAt(rng.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private <T> T pick(List<T> list) {
        return list.get(rng.nextInt(list.size()));
    }

    private static String quote(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "…(" + s.length() + " chars)" : s;
        StringBuilder sb = new StringBuilder("\"");
        for (char c : t.toCharArray()) {
            if (c == '\n') {
                sb.append("\\n");
            } else if (c < 0x20 || c == 0x7f || c == '\ufffd') {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
