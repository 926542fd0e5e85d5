package io.sandboxd.conformance.fake;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** A test-only runtime on loopback ports: FakeRest + FakeProcessService over one root directory. */
public final class FakeRuntime implements AutoCloseable {
    private final FakeRest rest;
    private final Server grpc;

    public FakeRuntime(Path root, Set<Breakage> broken) throws IOException {
        Set<Breakage> b = broken.isEmpty() ? EnumSet.noneOf(Breakage.class) : EnumSet.copyOf(broken);
        this.rest = new FakeRest(root, b);
        this.grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new FakeProcessService(root, b))
                .build()
                .start();
    }

    public String grpcTarget() {
        return "127.0.0.1:" + grpc.getPort();
    }

    public String restBase() {
        return "http://127.0.0.1:" + rest.port();
    }

    @Override
    public void close() throws InterruptedException {
        rest.close();
        grpc.shutdownNow();
        grpc.awaitTermination(5, TimeUnit.SECONDS);
    }
}
