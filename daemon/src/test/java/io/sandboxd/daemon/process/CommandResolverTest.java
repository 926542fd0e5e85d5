package io.sandboxd.daemon.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.SandboxRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandResolverTest {
    @TempDir
    Path tmp;

    CommandResolver resolver(Map<String, String> env) throws Exception {
        return new CommandResolver(new SandboxRoot(tmp.toRealPath()), env);
    }

    static ProcessRequest req(List<String> argv, Map<String, String> env, String cwd, TerminalSize t) {
        return new ProcessRequest(argv, env, cwd, t);
    }

    @Test
    void looksUpTheDaemonPathNotTheRequestPath() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path tool = bin.resolve("tool");
        Files.writeString(tool, "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        CommandResolver r = resolver(Map.of("PATH", "/nonexistent:" + bin));
        LaunchPlan p = r.resolve(req(List.of("tool", "a"), Map.of("PATH", "/elsewhere"), null, null));
        assertThat(p.executable()).isEqualTo(tool);
        assertThat(p.environment().asMap()).containsEntry("PATH", "/elsewhere");
        assertThat(p.argv()).containsExactly("tool", "a");
        assertThatThrownBy(() ->
                        resolver(Map.of("PATH", "/nonexistent")).resolve(req(List.of("tool"), Map.of(), null, null)))
                .isInstanceOfSatisfying(
                        SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND));
    }

    @Test
    void pwdIsTheRealCwdUnlessTheRequestSetsItAndTermDefaultsForPty() throws Exception {
        Files.createDirectories(tmp.resolve("w"));
        CommandResolver r = resolver(Map.of("PATH", "/usr/bin:/bin", "TERM", "dumb", "PWD", "/stale"));
        LaunchPlan pipe = r.resolve(req(List.of("sh"), Map.of(), "w", null));
        assertThat(pipe.environment().asMap())
                .containsEntry("PWD", tmp.toRealPath().resolve("w").toString())
                .containsEntry("TERM", "dumb");
        LaunchPlan pty = r.resolve(req(List.of("sh"), Map.of(), "w", TerminalSize.DEFAULT));
        assertThat(pty.environment().asMap()).containsEntry("TERM", "xterm-256color");
        LaunchPlan own = r.resolve(req(List.of("sh"), Map.of("TERM", "vt100"), "w", TerminalSize.DEFAULT));
        assertThat(own.environment().asMap()).containsEntry("TERM", "vt100");
    }

    @Test
    void rejectsBadInput() throws Exception {
        CommandResolver r = resolver(Map.of("PATH", "/usr/bin:/bin"));
        assertKind(() -> r.resolve(req(List.of(), Map.of(), null, null)), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> r.resolve(req(List.of("sh", "a\0b"), Map.of(), null, null)), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> r.resolve(req(List.of("sh"), Map.of("A=B", "x"), null, null)), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> r.resolve(req(List.of("sh"), Map.of("", "x"), null, null)), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> r.resolve(req(List.of("sh"), Map.of("A", "x\0"), null, null)), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> r.resolve(req(List.of("/etc/passwd"), Map.of(), null, null)), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> r.resolve(req(List.of("/etc"), Map.of(), null, null)), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> r.resolve(req(List.of("./nope"), Map.of(), null, null)), ErrorKind.NOT_FOUND);
    }

    @Test
    void terminalSizes() throws Exception {
        assertThat(TerminalSize.initial(0, 0)).isEqualTo(TerminalSize.DEFAULT);
        assertThat(TerminalSize.initial(100, 0)).isEqualTo(TerminalSize.DEFAULT);
        assertThat(TerminalSize.initial(100, 30)).isEqualTo(new TerminalSize(100, 30));
        assertKind(() -> TerminalSize.resize(0, 10), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> TerminalSize.resize(65536, 10), ErrorKind.INVALID_ARGUMENT);
        assertKind(() -> TerminalSize.resize(10, 4294967295L), ErrorKind.INVALID_ARGUMENT);
        assertThat(TerminalSize.resize(65535, 65535)).isEqualTo(new TerminalSize(65535, 65535));
    }

    interface Call {
        Object run() throws Exception;
    }

    static void assertKind(Call c, ErrorKind kind) {
        try {
            c.run();
            throw new AssertionError("no exception, expected " + kind);
        } catch (SandboxException e) {
            assertThat(e.kind()).isEqualTo(kind);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
