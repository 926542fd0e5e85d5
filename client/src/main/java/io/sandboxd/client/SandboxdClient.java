package io.sandboxd.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Java client of one sandboxd: its gRPC {@code process.v1.ProcessService} and its REST file
 * API. Thread-safe; one instance per daemon, reused for every call (the gRPC channel and the HTTP
 * client are made on first use, so a REST-only or gRPC-only user pays for one of them only).
 *
 * <p>Failures are unchecked: {@link GrpcCallException} (a non-OK status, with its code, message and
 * trailers), {@link RestCallException} (an HTTP error, with status and the JSON {@code code} /
 * {@code message}), {@link DaemonUnreachableException} (no connection; names the address), or a
 * plain {@link SandboxdException} for a transport failure after connecting. Local I/O errors of a
 * stream you pass in come out as {@link UncheckedIOException}.
 *
 * <p>Unary calls (Execute, WriteStdin, SendSignal, ResizeTTY, and every REST call but the bodies of
 * reads and writes) have a deadline, {@link Builder#callTimeout} (30 s by default); Start streams
 * and file writes have none unless {@link Builder#streamDeadline} sets one. {@link #withToken},
 * {@link #withCallTimeout} and {@link #withStreamDeadline} give views that share the connections.
 *
 * <pre>{@code
 * try (SandboxdClient c = SandboxdClient.connect("127.0.0.1:9090", "http://127.0.0.1:8080")) {
 *     ExecResult r = c.execute("sh", "-c", "echo hi; exit 3");      // r.exitCode() == 3
 *     c.write("notes/hello.txt", "hi\n".getBytes());
 *     try (RemoteProcess p = c.start(Command.of("cat"))) {          // pull mode
 *         p.writeStdin("x".getBytes()); p.closeStdin();
 *         for (StartResponse ev; (ev = p.next()) != null; ) { ... }
 *     }
 * }
 * }</pre>
 */
public final class SandboxdClient implements AutoCloseable {
    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final int MAX_ERROR_BODY = 64 * 1024;

    /** Per-view settings: the token and the two timeouts. */
    record Settings(String token, Duration callTimeout, Duration streamDeadline) {}

    private final Shared shared;
    final Settings settings;
    private final boolean owner;
    private volatile Channel authed;

    private SandboxdClient(Shared shared, Settings settings, boolean owner) {
        this.shared = shared;
        this.settings = settings;
        this.owner = owner;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A client of {@code grpcTarget} ({@code host:port}) and {@code restBase} ({@code http://host:port}). */
    public static SandboxdClient connect(String grpcTarget, String restBase) {
        return builder().grpcTarget(grpcTarget).restBase(restBase).build();
    }

    /** The same daemon with another bearer token (null: none); shares the connections. */
    public SandboxdClient withToken(String token) {
        return new SandboxdClient(shared, new Settings(token, settings.callTimeout, settings.streamDeadline), false);
    }

    /** The same daemon with another deadline for unary calls; shares the connections. */
    public SandboxdClient withCallTimeout(Duration timeout) {
        return new SandboxdClient(
                shared, new Settings(settings.token, Objects.requireNonNull(timeout), settings.streamDeadline), false);
    }

    /** The same daemon with a deadline for Start streams and file writes (null: none). */
    public SandboxdClient withStreamDeadline(Duration deadline) {
        return new SandboxdClient(shared, new Settings(settings.token, settings.callTimeout, deadline), false);
    }

    public String grpcTarget() {
        return shared.grpcTarget;
    }

    /** The REST base URL, without a trailing slash. */
    public String restBase() {
        return shared.restBase;
    }

    /** The gRPC channel with this view's token attached: for stubs of your own (health, reflection, …). */
    public Channel channel() {
        Channel c = authed;
        if (c == null) {
            ManagedChannel m = shared.channel();
            c = settings.token == null ? m : ClientInterceptors.intercept(m, new BearerToken(settings.token));
            authed = c;
        }
        return c;
    }

    /** The underlying channel, without any token. */
    public ManagedChannel managedChannel() {
        return shared.channel();
    }

    /** The HTTP client used for REST (HTTP/1.1). */
    public HttpClient httpClient() {
        return shared.http();
    }

    // ---------------------------------------------------------------- gRPC

    /** Runs {@code argv} to completion (stdin is /dev/null). */
    public ExecResult execute(String... argv) {
        return execute(Command.of(argv));
    }

    public ExecResult execute(Command command) {
        return execute(command.toExecuteRequest());
    }

    /** Execute exactly as given (e.g. a request the daemon should refuse). */
    public ExecResult execute(ExecuteRequest request) {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        ExecuteResponse r = unary(ProcessServiceGrpc.getExecuteMethod(), request, headers, trailers);
        return new ExecResult(r, headers.get(), trailers.get());
    }

    /** Starts {@code command}; read its events with {@link RemoteProcess#next()}. */
    public RemoteProcess start(Command command) {
        return start(command.toStartRequest(), null);
    }

    /** Starts {@code command}; its events go to {@code listener}. */
    public RemoteProcess start(Command command, StartListener listener) {
        return start(command.toStartRequest(), listener);
    }

    /** Start exactly as given; {@code listener} null means pull mode ({@link RemoteProcess#next()}). */
    public RemoteProcess start(StartRequest request, StartListener listener) {
        RemoteProcess p = new RemoteProcess(this, listener);
        Channel ch = ClientInterceptors.intercept(
                channel(), MetadataUtils.newCaptureMetadataInterceptor(p.headers, p.trailers));
        CallOptions o = CallOptions.DEFAULT;
        if (settings.streamDeadline != null) {
            o = o.withDeadlineAfter(settings.streamDeadline.toNanos(), TimeUnit.NANOSECONDS);
        }
        ClientCall<StartRequest, io.sandboxd.api.process.v1.StartResponse> call =
                ch.newCall(ProcessServiceGrpc.getStartMethod(), o);
        ClientCalls.asyncServerStreamingCall(call, request, p.observer());
        return p;
    }

    /** The code-context service ({@code sandboxd.code.v1alpha1}) of this view. */
    public CodeContexts code() {
        return new CodeContexts(this);
    }

    /** The durable-process service ({@code sandboxd.durable.v1alpha1}) of this view. */
    public DurableProcesses durable() {
        return new DurableProcesses(this);
    }

    public void writeStdin(int processId, byte[] data) {
        writeStdin(processId, ByteString.copyFrom(data));
    }

    public void writeStdin(int processId, ByteString data) {
        writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(processId)
                .setInput(data)
                .build());
    }

    /** Closes stdin (a PTY process gets ^D). A repeated close is OK. */
    public void closeStdin(int processId) {
        writeStdin(WriteStdinRequest.newBuilder()
                .setProcessId(processId)
                .setEof(Empty.getDefaultInstance())
                .build());
    }

    public void writeStdin(WriteStdinRequest request) {
        unary(ProcessServiceGrpc.getWriteStdinMethod(), request, null, null);
    }

    /** Signals the process group of a Start process. */
    public void sendSignal(int processId, Signal signal) {
        sendSignal(SendSignalRequest.newBuilder()
                .setProcessId(processId)
                .setSignal(signal)
                .build());
    }

    /** SendSignal exactly as given (e.g. a raw signal number via {@code setSignalValue}). */
    public void sendSignal(SendSignalRequest request) {
        unary(ProcessServiceGrpc.getSendSignalMethod(), request, null, null);
    }

    public void resizeTty(int processId, int cols, int rows) {
        resizeTty(ResizeTTYRequest.newBuilder()
                .setProcessId(processId)
                .setCols(cols)
                .setRows(rows)
                .build());
    }

    public void resizeTty(ResizeTTYRequest request) {
        unary(ProcessServiceGrpc.getResizeTTYMethod(), request, null, null);
    }

    <Q, R> R unary(
            MethodDescriptor<Q, R> method,
            Q request,
            AtomicReference<Metadata> headers,
            AtomicReference<Metadata> trailers) {
        return unary(method, request, headers, trailers, settings.callTimeout);
    }

    /** A unary call with {@code timeout} (null: none). */
    <Q, R> R unary(
            MethodDescriptor<Q, R> method,
            Q request,
            AtomicReference<Metadata> headers,
            AtomicReference<Metadata> trailers,
            Duration timeout) {
        AtomicReference<Metadata> t = trailers != null ? trailers : new AtomicReference<>();
        Channel ch = headers == null
                ? channel()
                : ClientInterceptors.intercept(channel(), MetadataUtils.newCaptureMetadataInterceptor(headers, t));
        CallOptions o = timeout == null
                ? CallOptions.DEFAULT
                : CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
        try {
            return ClientCalls.blockingUnaryCall(ch, method, o, request);
        } catch (StatusRuntimeException e) {
            throw grpcFailure(
                    method.getBareMethodName(), e.getStatus(), e.getTrailers() != null ? e.getTrailers() : t.get());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new SandboxdException(
                    method.getBareMethodName() + " at " + shared.grpcTarget + ": the client is closed", e);
        }
    }

    SandboxdException grpcFailure(String method, Status status, Metadata trailers) {
        if (status.getCode() == Status.Code.UNAVAILABLE
                && DaemonUnreachableException.isConnectFailure(status.getCause())) {
            return new DaemonUnreachableException("gRPC", shared.grpcTarget, status.getCause());
        }
        return new GrpcCallException(method, shared.grpcTarget, status, trailers);
    }

    // ---------------------------------------------------------------- REST: files

    /** HEAD: what the headers say about a file or directory. @throws RestCallException (404 if missing) */
    public FileInfo head(String path) {
        String shown = RestPaths.display(path);
        HttpResponse<Void> r = send(
                "HEAD",
                shown,
                request(RestPaths.files(path), settings.callTimeout)
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() >= 400) {
            throw failure("HEAD", shown, r.statusCode(), r.headers(), null);
        }
        return FileInfo.of(shown, r.statusCode(), r.headers());
    }

    /** HEAD: true on 2xx, false on 404. @throws RestCallException for any other error */
    public boolean exists(String path) {
        try {
            head(path);
            return true;
        } catch (RestCallException e) {
            if (e.httpStatus() == 404) {
                return false;
            }
            throw e;
        }
    }

    /** Opens a file for reading; close the download. @throws IsADirectoryException for a directory */
    public FileDownload open(String path) {
        return open(path, 0, -1);
    }

    /**
     * Opens {@code length} bytes from {@code offset} ({@code Range}; length -1: to the end).
     *
     * @throws RestCallException 416 when {@code offset} is past the end
     */
    public FileDownload open(String path, long offset, long length) {
        if (length == 0 || length < -1 || offset < 0) {
            throw new IllegalArgumentException("offset " + offset + ", length " + length + ": nothing to read");
        }
        String shown = RestPaths.display(path);
        HttpRequest.Builder b =
                request(RestPaths.files(path), settings.callTimeout).GET();
        boolean ranged = offset > 0 || length >= 0;
        if (ranged) {
            b.header("Range", "bytes=" + offset + "-" + (length >= 0 ? Long.toString(offset + length - 1) : ""));
        }
        HttpResponse<InputStream> r = send("GET", shown, b.build(), HttpResponse.BodyHandlers.ofInputStream());
        checkStatus("GET", shown, r);
        FileInfo info = FileInfo.of(shown, r.statusCode(), r.headers());
        if (info.directory()) {
            closeQuietly(r.body());
            throw new IsADirectoryException(shown);
        }
        if (ranged && r.statusCode() != 206) {
            closeQuietly(r.body());
            throw new SandboxdException(
                    "GET " + shown + " at " + shared.restBase + ": a range was asked for, got " + r.statusCode());
        }
        return new FileDownload(info, transportErrors("GET", shown, r.body()));
    }

    /** Streams a file to {@code out}; @return the bytes copied. */
    public long read(String path, OutputStream out) {
        return read(path, 0, -1, out);
    }

    /** Streams {@code length} bytes from {@code offset} (length -1: to the end) to {@code out}. */
    public long read(String path, long offset, long length, OutputStream out) {
        try (FileDownload d = open(path, offset, length)) {
            return copy(d.body(), out);
        }
    }

    /** A small file's bytes, in memory. */
    public byte[] readBytes(String path) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        read(path, out);
        return out.toByteArray();
    }

    public void write(String path, byte[] content) {
        write(path, content, WriteOptions.defaults());
    }

    public void write(String path, byte[] content, WriteOptions options) {
        put(path, HttpRequest.BodyPublishers.ofByteArray(content), options, null);
    }

    /** Uploads a local file, streamed from disk with its exact Content-Length. */
    public void write(String path, Path local) {
        write(path, local, WriteOptions.defaults());
    }

    public void write(String path, Path local, WriteOptions options) {
        try {
            if (!Files.isRegularFile(local)) {
                throw new java.nio.file.NoSuchFileException(local.toString(), null, "not a regular file");
            }
            put(path, HttpRequest.BodyPublishers.ofFile(local), options, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Uploads a stream of unknown length (chunked), read as the daemon takes it. */
    public void write(String path, InputStream content) {
        write(path, content, -1, WriteOptions.defaults());
    }

    /** Uploads {@code length} bytes of {@code content} (-1: unknown, sent chunked). */
    public void write(String path, InputStream content, long length, WriteOptions options) {
        LocalSource source = new LocalSource(content);
        HttpRequest.BodyPublisher body = length == 0
                ? HttpRequest.BodyPublishers.noBody()
                : length > 0
                        ? HttpRequest.BodyPublishers.fromPublisher(
                                HttpRequest.BodyPublishers.ofInputStream(() -> source), length)
                        : HttpRequest.BodyPublishers.ofInputStream(() -> source);
        put(path, body, options, source);
    }

    private void put(String path, HttpRequest.BodyPublisher body, WriteOptions options, LocalSource source) {
        String shown = RestPaths.display(path);
        HttpRequest.Builder b = request(RestPaths.files(path) + options.query(), settings.streamDeadline)
                .header("Content-Type", "application/octet-stream")
                .PUT(body);
        options.apply(b);
        HttpResponse<byte[]> r;
        try {
            r = send("PUT", shown, b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (SandboxdException e) {
            if (source != null && source.failure != null) {
                throw new UncheckedIOException("reading the content for PUT " + shown, source.failure);
            }
            throw e;
        }
        if (source != null && source.failure != null) {
            throw new UncheckedIOException("reading the content for PUT " + shown, source.failure);
        }
        if (r.statusCode() >= 400) {
            throw failure("PUT", shown, r.statusCode(), r.headers(), r.body());
        }
    }

    /** A directory's listing. @throws NotADirectoryException for a file */
    public DirectoryListing list(String path) {
        String shown = RestPaths.display(path);
        HttpResponse<InputStream> r = send(
                "GET",
                shown,
                request(RestPaths.files(path), settings.callTimeout).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        checkStatus("GET", shown, r);
        try (InputStream in = r.body()) {
            if (!FileInfo.of(shown, r.statusCode(), r.headers()).directory()) {
                throw new NotADirectoryException(shown);
            }
            return Json.listing(in);
        } catch (IOException e) {
            throw new SandboxdException("GET " + shown + " at " + shared.restBase + ": " + e, e);
        }
    }

    /** Deletes a file, a symlink or an empty directory. */
    public void delete(String path) {
        delete(path, false);
    }

    /** Deletes; with {@code recursive} also a non-empty directory (else 409). The root is emptied, not removed. */
    public void delete(String path, boolean recursive) {
        String shown = RestPaths.display(path);
        HttpResponse<byte[]> r = send(
                "DELETE",
                shown,
                request(RestPaths.files(path) + (recursive ? "?recursive=true" : ""), settings.callTimeout)
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() >= 400) {
            throw failure("DELETE", shown, r.statusCode(), r.headers(), r.body());
        }
    }

    // ---------------------------------------------------------------- REST: file operations

    /** Stat, deep listings, mkdir, move, chmod and directory archives (runtime-contract §4.3). */
    public RemoteFiles files() {
        return new RemoteFiles(this);
    }

    /**
     * One call to an extension file route, its body read whole (small JSON, or nothing).
     *
     * @param tar a tar body to send (with the stream deadline rather than the call timeout), or null for none
     */
    byte[] restCall(String method, String shown, String route, HttpRequest.BodyPublisher tar) {
        HttpRequest.Builder b = request(
                        RemoteFiles.PREFIX + route, tar != null ? settings.streamDeadline : settings.callTimeout)
                .method(method, tar != null ? tar : HttpRequest.BodyPublishers.noBody());
        if (tar != null) {
            b.header("Content-Type", "application/x-tar");
        }
        HttpResponse<byte[]> r = send(method, shown, b.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() >= 400) {
            throw failure(method, shown, r.statusCode(), r.headers(), r.body());
        }
        return r.body();
    }

    /** A GET of an extension file route whose body is streamed (listings, archives); errors already thrown. */
    HttpResponse<InputStream> restStream(String method, String shown, String route) {
        HttpResponse<InputStream> r = send(
                method,
                shown,
                request(RemoteFiles.PREFIX + route, settings.streamDeadline)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        checkStatus(method, shown, r);
        return r;
    }

    // ---------------------------------------------------------------- REST: runtime

    /** {@code GET /v1/health} (never needs a token). @throws RestCallException 503 while shutting down */
    public Health health() {
        HttpResponse<byte[]> r = get("/v1/health");
        return Json.health(r.body());
    }

    /** {@code GET /v1/metadata}: the variables the daemon exposes. */
    public Map<String, String> metadata() {
        HttpResponse<byte[]> r = get("/v1/metadata");
        return Json.metadata(r.body());
    }

    // ---------------------------------------------------------------- REST: watch (runtime-contract §4.2)

    /**
     * Watches {@code path} (a directory or a file): pull events with {@link FileWatch#next()}.
     * Returns once the daemon is watching, so every change made after it is reported.
     *
     * @throws RestCallException the daemon refused the watch (404, 403, 400, 401, 429 naming a limit)
     */
    public FileWatch watch(String path, WatchOptions options) {
        FileWatch w = new FileWatch(this::openWatchStream, path, options);
        w.connect();
        return w;
    }

    /**
     * Watches {@code path}, calling {@code listener} from a thread of its own until the watch ends
     * (then {@link WatchListener#onEnd}); close the returned watch to stop it.
     */
    public FileWatch watch(String path, WatchOptions options, WatchListener listener) {
        FileWatch w = watch(path, options);
        Thread t = new Thread(
                () -> {
                    try {
                        for (WatchEvent e; (e = w.next()) != null; ) {
                            listener.onEvent(e);
                        }
                        listener.onEnd(null);
                    } catch (RuntimeException e) {
                        listener.onEnd(e);
                    }
                },
                "sandboxd-watch " + RestPaths.display(path));
        t.setDaemon(true);
        t.start();
        return w;
    }

    private InputStream openWatchStream(String shown, String query, Long lastEventId) {
        String route = "/sandboxd/v1alpha1/watch";
        HttpRequest.Builder b =
                request(route + "?" + query, settings.callTimeout).header("Accept", "text/event-stream");
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId.toString());
        }
        HttpResponse<InputStream> r = send("GET", shown, b.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        checkStatus("GET", shown, r);
        return r.body();
    }

    private HttpResponse<byte[]> get(String route) {
        HttpResponse<byte[]> r = send(
                "GET",
                route,
                request(route, settings.callTimeout).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() >= 400) {
            throw failure("GET", route, r.statusCode(), r.headers(), r.body());
        }
        return r;
    }

    // ---------------------------------------------------------------- REST plumbing

    private HttpRequest.Builder request(String rawPathAndQuery, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(shared.restBase + rawPathAndQuery));
        if (timeout != null) {
            b.timeout(timeout);
        }
        if (settings.token != null) {
            b.header("Authorization", "Bearer " + settings.token);
        }
        return b;
    }

    private <T> HttpResponse<T> send(
            String method, String shown, HttpRequest req, HttpResponse.BodyHandler<T> handler) {
        try {
            return shared.http().send(req, handler);
        } catch (IOException e) {
            if (DaemonUnreachableException.isConnectFailure(e)) {
                throw new DaemonUnreachableException("REST", shared.restBase, e);
            }
            throw new SandboxdException(method + " " + shown + " at " + shared.restBase + ": " + describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxdException(method + " " + shown + ": interrupted", e);
        }
    }

    private void checkStatus(String method, String shown, HttpResponse<InputStream> r) {
        if (r.statusCode() >= 400) {
            byte[] body;
            try (InputStream in = r.body()) {
                body = in.readNBytes(MAX_ERROR_BODY);
            } catch (IOException e) {
                body = null;
            }
            throw failure(method, shown, r.statusCode(), r.headers(), body);
        }
    }

    private static RestCallException failure(
            String method, String shown, int status, java.net.http.HttpHeaders h, byte[] body) {
        String[] codeMessage = Json.error(body);
        String code = codeMessage[0] != null ? codeMessage[0] : RestCallException.codeForStatus(status);
        return new RestCallException(method, shown, status, code, codeMessage[1], h);
    }

    private long copy(InputStream in, OutputStream out) {
        byte[] buf = new byte[64 * 1024];
        long n = 0;
        while (true) {
            int r;
            try {
                r = in.read(buf);
            } catch (IOException e) {
                throw e instanceof TransportException t ? t.unwrap() : new SandboxdException(describe(e), e);
            }
            if (r < 0) {
                return n;
            }
            try {
                out.write(buf, 0, r);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            n += r;
        }
    }

    private InputStream transportErrors(String method, String shown, InputStream in) {
        String where = method + " " + shown + " at " + shared.restBase;
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                try {
                    return super.read();
                } catch (IOException e) {
                    throw new TransportException(where, e);
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return super.read(b, off, len);
                } catch (IOException e) {
                    throw new TransportException(where, e);
                }
            }
        };
    }

    /** An IOException of a response body: the connection broke while reading. */
    static final class TransportException extends IOException {
        TransportException(String where, IOException cause) {
            super(where + ": " + describe(cause), cause);
        }

        SandboxdException unwrap() {
            return new SandboxdException(getMessage(), getCause());
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // aborting the exchange
        }
    }

    /** The caller's content stream, remembering its own failure (so it is not blamed on the daemon). */
    private static final class LocalSource extends FilterInputStream {
        volatile IOException failure;

        LocalSource(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return super.read(b, off, len);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public int read() throws IOException {
            try {
                return super.read();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }

    /**
     * Closes the connections this client made and stops their threads (a channel or HTTP client
     * you supplied is yours to close). Views ({@link #withToken} …) share the client's; closing a
     * view does nothing.
     */
    @Override
    public void close() {
        if (owner) {
            shared.close();
        }
    }

    // ---------------------------------------------------------------- builder and shared state

    public static final class Builder {
        private String grpcTarget = "127.0.0.1:9090";
        private String restBase = "http://127.0.0.1:8080";
        private String token;
        private Duration callTimeout = Duration.ofSeconds(30);
        private Duration streamDeadline;
        private ManagedChannel channel;
        private HttpClient httpClient;
        private Executor executor;
        private int maxInboundMessageBytes = 256 * 1024 * 1024;
        private int flowControlWindowBytes;

        /**
         * The receive window a stream starts with (grpc's is 1 MiB): a journal replay arrives in
         * events of up to ~508 KiB, and grpc gives the window back only as whole messages are
         * delivered, so 1 MiB kept barely two events in flight and each end kept waiting for the
         * other. Bench durable, 1 GiB replays interleaved (load 7-9, 8 runs each): 991 MB/s, 0.77
         * daemon and 0.67 client CPU s/GiB with this window, 680 MB/s and 0.97 client CPU s/GiB
         * with grpc's. A reader that stops reading holds at most this much (then what the
         * auto-tuning added) in flight per stream.
         */
        static final int INITIAL_WINDOW_BYTES = 4 << 20;

        private Builder() {}

        /** {@code host:port} of the gRPC listener (default 127.0.0.1:9090). */
        public Builder grpcTarget(String hostPort) {
            this.grpcTarget = Objects.requireNonNull(hostPort);
            return this;
        }

        /** The REST base URL (default http://127.0.0.1:8080); a path prefix is kept (e.g. a router's). */
        public Builder restBase(String url) {
            String u = Objects.requireNonNull(url);
            this.restBase = u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
            return this;
        }

        /** Bearer token for both APIs (null: none). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        public Builder callTimeout(Duration timeout) {
            this.callTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        public Builder streamDeadline(Duration deadline) {
            this.streamDeadline = deadline;
            return this;
        }

        /** Use this channel (not shut down by {@link #close()}) instead of making one for the target. */
        public Builder channel(ManagedChannel channel) {
            this.channel = channel;
            return this;
        }

        /** Use this HTTP client (HTTP/1.1 recommended) instead of making one. */
        public Builder httpClient(HttpClient client) {
            this.httpClient = client;
            return this;
        }

        /** Runs gRPC callbacks and the HTTP client's work on this executor (default: their own pools). */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** Largest gRPC message accepted (default 256 MiB, for Execute with a large output limit). */
        public Builder maxInboundMessageBytes(int bytes) {
            this.maxInboundMessageBytes = bytes;
            return this;
        }

        /**
         * A fixed HTTP/2 receive window of this many bytes per stream instead of the default, which
         * starts at {@link #INITIAL_WINDOW_BYTES} and grows with the measured bandwidth-delay product
         * (grpc's auto-tuning, up to 8 MiB).
         * A reader that pauses holds at most this much in flight, so the server notices the pause
         * after a known number of bytes.
         */
        public Builder flowControlWindow(int bytes) {
            if (bytes < 65_535) {
                throw new IllegalArgumentException(
                        "flowControlWindow must be at least 65535 bytes (HTTP/2's initial" + " window), got " + bytes);
            }
            this.flowControlWindowBytes = bytes;
            return this;
        }

        public SandboxdClient build() {
            URI base = URI.create(restBase);
            if (base.getScheme() == null || base.getHost() == null) {
                throw new IllegalArgumentException(
                        "REST base must be a URL like http://127.0.0.1:8080, got " + restBase);
            }
            return new SandboxdClient(new Shared(this), new Settings(token, callTimeout, streamDeadline), true);
        }
    }

    private static final class Shared {
        final String grpcTarget;
        final String restBase;
        private final Builder b;
        private ManagedChannel channel;
        private boolean ownChannel;
        private EventLoopGroup group;
        private HttpClient http;
        private boolean ownHttp;

        Shared(Builder b) {
            this.grpcTarget = b.grpcTarget;
            this.restBase = b.restBase;
            this.b = b;
            this.channel = b.channel;
            this.http = b.httpClient;
        }

        synchronized ManagedChannel channel() {
            if (channel == null) {
                // A one-thread event loop of its own, ended by close(): a JVM exits ~300 ms late
                // while a thread sits in epoll (JDK 17-21 wait for it), so short-lived
                // programs must be able to stop it; grpc's shared loop lingers for a second.
                group = new MultiThreadIoEventLoopGroup(
                        1, new DefaultThreadFactory("sandboxd-client-io", true), NioIoHandler.newFactory());
                NettyChannelBuilder nb = NettyChannelBuilder.forTarget(grpcTarget)
                        .usePlaintext()
                        .eventLoopGroup(group)
                        .channelType(NioSocketChannel.class)
                        .maxInboundMessageSize(b.maxInboundMessageBytes)
                        .maxInboundMetadataSize(64 * 1024);
                if (b.flowControlWindowBytes > 0) {
                    nb.flowControlWindow(b.flowControlWindowBytes);
                } else {
                    nb.initialFlowControlWindow(Builder.INITIAL_WINDOW_BYTES);
                }
                if (b.executor != null) {
                    nb.executor(b.executor);
                }
                channel = nb.build();
                ownChannel = true;
            }
            return channel;
        }

        synchronized HttpClient http() {
            if (http == null) {
                HttpClient.Builder hb = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(10));
                if (b.executor != null) {
                    hb.executor(b.executor);
                }
                http = hb.build();
                ownHttp = true;
            }
            return http;
        }

        synchronized void close() {
            if (ownChannel && channel != null) {
                channel.shutdownNow();
                try {
                    channel.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            if (ownHttp && http != null) {
                stopHttpClient(http);
            }
        }
    }

    /**
     * Stops an HTTP client's selector thread: {@code shutdownNow()} on JDK 21+; on JDK 17-20, which
     * have no such method, an interrupt of the thread the client named after its id (its select is
     * interruptible and its loop ends on an interrupt). Otherwise it would sit in epoll until the
     * client is collected, and a JVM exits ~300 ms late while a thread is in native code.
     */
    static void stopHttpClient(HttpClient http) {
        try {
            HttpClient.class.getMethod("shutdownNow").invoke(http);
            return;
        } catch (ReflectiveOperationException | RuntimeException e) {
            // JDK 17-20
        }
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\((\\d+)\\)$").matcher(http.toString());
        if (!m.find()) {
            return;
        }
        String name = "HttpClient-" + m.group(1) + "-SelectorManager";
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                t.interrupt();
                try {
                    t.join(500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static final class BearerToken implements ClientInterceptor {
        private final String value;

        BearerToken(String token) {
            this.value = "Bearer " + token;
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<R> listener, Metadata headers) {
                    headers.put(AUTHORIZATION, value);
                    super.start(listener, headers);
                }
            };
        }
    }
}
