package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.SandboxRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link ProcessRequest} into a {@link LaunchPlan} (runtime-contract §1.2): validates the
 * command and environment, confines the cwd to the root, merges the environment and finds the
 * binary on the daemon's PATH. Resolution happens here, before the spawn, because the spawn goes
 * through {@code setsid}, which would otherwise turn "not found" into an exit code 127.
 */
public final class CommandResolver {
    static final String DEFAULT_TERM = "xterm-256color";

    private final SandboxRoot root;
    private final ChildEnvironment.Base baseEnv;

    public CommandResolver(SandboxRoot root, Map<String, String> daemonEnv) {
        this.root = root;
        this.baseEnv = new ChildEnvironment.Base(daemonEnv);
    }

    public LaunchPlan resolve(ProcessRequest request) throws SandboxException {
        List<String> argv = request.command();
        if (argv.isEmpty()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "command is required");
        }
        for (String arg : argv) {
            if (arg.indexOf('\0') >= 0) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "command contains a NUL byte");
            }
        }
        for (Map.Entry<String, String> e : request.env().entrySet()) {
            String k = e.getKey();
            if (k.isEmpty()
                    || k.indexOf('=') >= 0
                    || k.indexOf('\0') >= 0
                    || e.getValue().indexOf('\0') >= 0) {
                throw new SandboxException(
                        ErrorKind.INVALID_ARGUMENT,
                        "invalid environment variable name or value (empty name, '=' in name, or NUL)");
            }
        }
        Path cwd = root.resolveWorkingDirectory(request.cwd());
        Path executable = findExecutable(argv.get(0), cwd);

        Map<String, String> overrides = ChildEnvironment.newOverrides();
        overrides.put("PWD", cwd.toString());
        if (request.terminal() != null) {
            overrides.put("TERM", DEFAULT_TERM);
        }
        overrides.putAll(request.env());
        return new LaunchPlan(executable, argv, new ChildEnvironment(baseEnv, overrides), cwd, request.terminal());
    }

    Path findExecutable(String name, Path cwd) throws SandboxException {
        if (name.isEmpty()) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "executable \"\" not found");
        }
        try {
            if (name.indexOf('/') >= 0) {
                Path p = name.startsWith("/") ? Path.of(name) : cwd.resolve(name);
                return checkExecutable(name, p);
            }
            String pathVar = baseEnv.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
            for (String dir : pathVar.split(":")) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(dir).resolve(name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toAbsolutePath();
                }
            }
        } catch (InvalidPathException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "invalid executable name");
        }
        throw new SandboxException(ErrorKind.NOT_FOUND, "executable \"" + name + "\" not found in PATH");
    }

    private static Path checkExecutable(String name, Path p) throws SandboxException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(p, BasicFileAttributes.class); // one stat for both checks
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "executable \"" + name + "\" not found");
        }
        if (attrs.isDirectory()) {
            throw new SandboxException(
                    ErrorKind.PERMISSION_DENIED, "permission denied: \"" + name + "\" is a directory");
        }
        if (!Files.isExecutable(p)) {
            throw new SandboxException(
                    ErrorKind.PERMISSION_DENIED, "permission denied: \"" + name + "\" is not executable");
        }
        return p.toAbsolutePath();
    }
}
