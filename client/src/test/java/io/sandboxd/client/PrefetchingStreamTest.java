package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.code.v1alpha1.ClearOutput;
import io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecuteRequest;
import io.sandboxd.api.code.v1alpha1.ExecutionStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Execute reader's stream against a real gRPC server on loopback. */
class PrefetchingStreamTest {
    static final Metadata.Key<String> WHY = Metadata.Key.of("why", Metadata.ASCII_STRING_MARSHALLER);

    final CountDownLatch cancelled = new CountDownLatch(1);
    final CountDownLatch burstSent = new CountDownLatch(1);
    final AtomicInteger requested = new AtomicInteger();
    final java.util.Queue<Status.Code> closes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    Server server;
    ManagedChannel channel;

    /** What the fake Execute does is named by the request's code: "events N", "burst N", "fail", "hang". */
    final class FakeService extends CodeContextServiceGrpc.CodeContextServiceImplBase {
        @Override
        public void execute(ExecuteRequest request, StreamObserver<ExecuteEvent> out) {
            String[] what = request.getCode().split(" ");
            switch (what[0]) {
                case "events", "burst" -> {
                    for (int i = 0; i < Integer.parseInt(what[1]); i++) {
                        out.onNext(numbered(i));
                    }
                    out.onNext(ExecuteEvent.newBuilder()
                            .setStatus(ExecutionStatus.newBuilder().setExecutionCount(7))
                            .build());
                    if (what.length > 2) { // "events N LATE_MS": the call ends that much after the status
                        try {
                            Thread.sleep(Long.parseLong(what[2]));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    out.onCompleted();
                    burstSent.countDown();
                }
                case "fail" -> {
                    Metadata trailers = new Metadata();
                    trailers.put(WHY, "no such context");
                    out.onError(Status.NOT_FOUND.withDescription("context x").asRuntimeException(trailers));
                }
                default -> ((ServerCallStreamObserver<ExecuteEvent>) out).setOnCancelHandler(cancelled::countDown);
            }
        }
    }

    /** An event that carries its number (ClearOutput.wait alternates; the size tells them apart). */
    static ExecuteEvent numbered(int i) {
        return ExecuteEvent.newBuilder()
                .setClear(ClearOutput.newBuilder().setWait(i % 2 == 1))
                .build();
    }

    @BeforeEach
    void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new FakeService())
                .build()
                .start();
        ClientInterceptor countRequests = new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> m, CallOptions o, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(m, o)) {
                    @Override
                    public void request(int n) {
                        requested.addAndGet(n);
                        super.request(n);
                    }

                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        super.start(
                                new io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener<>(
                                        listener) {
                                    @Override
                                    public void onClose(Status status, Metadata trailers) {
                                        closes.add(status.getCode());
                                        super.onClose(status, trailers);
                                    }
                                },
                                headers);
                    }
                };
            }
        };
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .intercept(countRequests)
                .build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    PrefetchingStream<ExecuteRequest, ExecuteEvent> call(String code) {
        return new PrefetchingStream<>(
                channel,
                CodeContextServiceGrpc.getExecuteMethod(),
                CallOptions.DEFAULT,
                ExecuteRequest.newBuilder().setContextId("c").setCode(code).build());
    }

    @Test
    void theEventsComeInOrderThenTheStatusThenNullForGood() {
        var s = call("events 10");
        for (int i = 0; i < 10; i++) {
            assertThat(s.next()).isEqualTo(numbered(i));
        }
        assertThat(s.next().getStatus().getExecutionCount()).isEqualTo(7);
        assertThat(s.next()).isNull();
        assertThat(s.next()).isNull();
    }

    @Test
    void endedIsSetOnlyOnceTheReaderSawTheEnd() {
        var s = call("events 1");
        s.next();
        s.next();
        assertThat(s.ended()).isFalse();
        assertThat(s.next()).isNull();
        assertThat(s.ended()).isTrue();
    }

    @Test
    void runReadsTheCallToItsEndSoClosingItCancelsNothing() {
        try (SandboxdClient client = SandboxdClient.builder()
                .channel(channel)
                .restBase("http://127.0.0.1:1")
                .build()) {
            for (int i = 0; i < 3; i++) {
                assertThat(client.code().run("c", "events 2 100", null).status().getExecutionCount())
                        .isEqualTo(7);
            }
        }
        // The end comes 100 ms after the status: cancelling at the status would close CANCELLED.
        assertThat(closes).hasSize(3).containsOnly(Status.Code.OK);
    }

    @Test
    void messagesAreAskedForAheadOfTheReaderUpToTheWindowAndNoFurther() throws Exception {
        var s = call("burst 50");
        assertThat(burstSent.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200); // whatever the transport would still deliver unasked has arrived
        // Before the first read the window is asked for (grpc's blocking iterator asks for one).
        assertThat(requested.get()).isEqualTo(PrefetchingStream.WINDOW);
        for (int i = 0; i < 3; i++) {
            assertThat(s.next()).isEqualTo(numbered(i));
        }
        // One more for each message taken: never more than the window waits unread.
        assertThat(requested.get()).isEqualTo(PrefetchingStream.WINDOW + 3);
        for (int i = 3; i < 50; i++) {
            assertThat(s.next()).isEqualTo(numbered(i));
        }
        assertThat(s.next().hasStatus()).isTrue();
        assertThat(s.next()).isNull();
    }

    @Test
    void aFailedCallThrowsItsStatusWithItsTrailersEveryTime() {
        var s = call("fail");
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(s::next).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                assertThat(e.getStatus().getDescription()).isEqualTo("context x");
                assertThat(e.getTrailers().get(WHY)).isEqualTo("no such context");
            });
        }
    }

    @Test
    void anInterruptedReaderCancelsTheCallAndKeepsItsInterrupt() throws Exception {
        var s = call("hang");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try {
                s.next();
            } catch (Throwable t) {
                thrown.set(t);
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        reader.start();
        Thread.sleep(200);
        reader.interrupt();
        reader.join(10_000);

        assertThat(reader.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                        e.getStatus().getCode())
                .isEqualTo(Status.Code.CANCELLED));
        assertThat(stillInterrupted.get()).isTrue();
        assertThat(cancelled.await(10, TimeUnit.SECONDS))
                .as("the server saw the cancel")
                .isTrue();
    }
}
