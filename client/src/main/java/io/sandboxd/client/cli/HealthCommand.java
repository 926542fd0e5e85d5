package io.sandboxd.client.cli;

import io.grpc.Status;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.Health;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/** {@code health}: both APIs, one line each. */
@CommandLine.Command(
        name = "health",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Checks both APIs: GET /v1/health on REST, and a ProcessService call on gRPC (SendSignal to "
                    + "a process id that cannot exist: NOT_FOUND means it is serving, and the token is accepted).",
            "Prints one line per API; exits 0 if both are ok, else 1."
        })
final class HealthCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Override
    public Integer call() throws IOException {
        try (SandboxdClient client = conn.client()) {
            return run(client);
        }
    }

    private int run(SandboxdClient client) throws IOException {
        boolean ok = true;
        try {
            Health h = client.health();
            System.out.println("rest " + client.restBase() + ": " + h.status() + " (up " + h.uptimeSeconds() + " s)");
            ok &= "ok".equals(h.status());
        } catch (SandboxdException e) {
            System.out.println("rest " + client.restBase() + ": " + CliErrors.describe(e));
            ok = false;
        }
        try {
            client.sendSignal(SendSignalRequest.newBuilder()
                    .setProcessId(Integer.MAX_VALUE)
                    .setSignal(Signal.SIGNAL_SIGTERM)
                    .build());
            System.out.println("grpc " + client.grpcTarget() + ": ok");
        } catch (GrpcCallException e) {
            if (e.code() == Status.Code.NOT_FOUND) {
                System.out.println("grpc " + client.grpcTarget() + ": ok");
            } else {
                System.out.println("grpc " + client.grpcTarget() + ": " + CliErrors.describe(e));
                ok = false;
            }
        } catch (SandboxdException e) {
            System.out.println("grpc " + client.grpcTarget() + ": " + CliErrors.describe(e));
            ok = false;
        }
        System.out.flush();
        return ok ? 0 : 1;
    }
}
