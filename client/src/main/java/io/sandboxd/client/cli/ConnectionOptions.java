package io.sandboxd.client.cli;

import io.sandboxd.api.GoDuration;
import io.sandboxd.client.SandboxdClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Where the daemon is and how to authenticate, shared by every verb: flag, else environment,
 * else loopback defaults. The token is never a flag value (it would show in {@code ps}).
 */
public class ConnectionOptions extends DaemonOptions {
    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            description = "Deadline of each request, Go syntax (10s, 1m30s; default 30s). Not applied to "
                    + "the output of exec or to file bodies.")
    String timeout;

    @Override
    Duration callTimeout() {
        if (timeout == null) {
            return Duration.ofSeconds(30);
        }
        try {
            Duration d = GoDuration.parse(timeout);
            if (d.isZero()) {
                throw new IllegalArgumentException("--timeout must be above 0");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
        }
    }
}

/**
 * The daemon's addresses and the token, without {@code --timeout}: for {@code run}, whose
 * {@code --timeout} is the process's server-side deadline. Requests keep the default 30 s.
 */
class DaemonOptions {
    static final String DEFAULT_GRPC = "127.0.0.1:9090";
    static final String DEFAULT_REST = "http://127.0.0.1:8080";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--grpc",
            paramLabel = "HOST:PORT",
            description = "gRPC address of the daemon (env SANDBOXD_GRPC_ADDR, default " + DEFAULT_GRPC + ").")
    String grpc;

    @Option(
            names = "--rest",
            paramLabel = "URL",
            description = "REST base URL of the daemon (env SANDBOXD_REST_ADDR, default " + DEFAULT_REST + ").")
    String rest;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "File holding the bearer token (else env SANDBOXD_TOKEN; default: none).")
    Path tokenFile;

    static Map<String, String> env = System.getenv();

    private SandboxdClient client;

    String grpcTarget() {
        String v = grpc != null ? grpc : env.get("SANDBOXD_GRPC_ADDR");
        if (v == null || v.isBlank()) {
            return DEFAULT_GRPC;
        }
        int colon = v.lastIndexOf(':');
        if (colon <= 0
                || colon == v.length() - 1
                || !v.substring(colon + 1).chars().allMatch(Character::isDigit)) {
            throw new ParameterException(spec.commandLine(), "--grpc must be HOST:PORT, got \"" + v + "\"");
        }
        return v;
    }

    String restBase() {
        String v = rest != null ? rest : env.get("SANDBOXD_REST_ADDR");
        if (v == null || v.isBlank()) {
            return DEFAULT_REST;
        }
        String url = v.contains("://") ? v : "http://" + v;
        try {
            java.net.URI u = java.net.URI.create(url);
            if (u.getHost() == null
                    || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(), "--rest must be a URL like " + DEFAULT_REST + ", got \"" + v + "\"");
        }
        return url;
    }

    String token() {
        if (tokenFile != null) {
            try {
                String t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
                if (t.isEmpty()) {
                    throw new ParameterException(spec.commandLine(), "--token-file " + tokenFile + " is empty");
                }
                return t;
            } catch (IOException e) {
                throw new ParameterException(
                        spec.commandLine(), "cannot read --token-file " + tokenFile + ": " + CliErrors.localReason(e));
            }
        }
        String t = env.get("SANDBOXD_TOKEN");
        return t == null || t.isBlank() ? null : t.strip();
    }

    Duration callTimeout() {
        return Duration.ofSeconds(30);
    }

    /** The client, made once (connections open on first use). */
    SandboxdClient client() {
        if (client == null) {
            client = SandboxdClient.builder()
                    .grpcTarget(grpcTarget())
                    .restBase(restBase())
                    .token(token())
                    .callTimeout(callTimeout())
                    .build();
        }
        return client;
    }
}
