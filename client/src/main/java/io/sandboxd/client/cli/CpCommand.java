package io.sandboxd.client.cli;

import io.sandboxd.client.RestPaths;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.WriteOptions;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cp}: one file, streamed either way, any size. */
@CommandLine.Command(
        name = "cp",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Copies a file to the sandbox (cp LOCAL :REMOTE) or from it (cp :REMOTE LOCAL), streamed, any size.",
            "LOCAL '-' is stdin or stdout. A REMOTE ending in '/' (or ':' alone) gets the local file's name, and "
                    + "so does a LOCAL that is a directory. Uploads keep the local permission bits and are atomic "
                    + "(the daemon renames a complete temp file); downloads go to a temp file renamed at the end.",
            "-r copies a whole directory as one tar stream (the local 'tar' makes or unpacks it): all or nothing on "
                    + "both sides, symlinks, modes and empty directories kept. As cp -r does, an existing directory "
                    + "DST receives a copy named after SRC; else DST is the copy."
        },
        footer = {
            "",
            "Examples:",
            "  sandboxd-cli cp ./data.csv :work/data.csv",
            "  sandboxd-cli cp :work/out.log -          # to stdout",
            "  tar c src | sandboxd-cli cp - :src.tar",
            "  sandboxd-cli cp -r ./project :work/project",
            "  sandboxd-cli cp -r :work/project ./out"
        })
final class CpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Option(
            names = {"-r", "--recursive"},
            description = "Copy a directory (through the daemon's archive routes).")
    boolean recursive;

    @Parameters(index = "0", paramLabel = "SRC", description = "LOCAL, '-', or :REMOTE")
    String src;

    @Parameters(index = "1", paramLabel = "DST", description = ":REMOTE, or LOCAL, '-'")
    String dst;

    @Override
    public Integer call() throws IOException {
        boolean srcRemote = src.startsWith(":");
        boolean dstRemote = dst.startsWith(":");
        if (srcRemote == dstRemote) {
            throw new ParameterException(
                    spec.commandLine(),
                    "exactly one of SRC and DST must be a sandbox path (:PATH), got '" + src + "' and '" + dst + "'");
        }
        try (SandboxdClient client = conn.client()) {
            return run(client);
        }
    }

    private int run(SandboxdClient client) throws IOException {
        if (recursive) {
            if (dst.startsWith(":")) {
                DirectoryCopy.upload(client, Path.of(src), dst.substring(1));
            } else {
                DirectoryCopy.download(client, src.substring(1), Path.of(dst));
            }
            return 0;
        }
        if (dst.startsWith(":")) {
            upload(client, src, dst.substring(1));
        } else {
            download(client, src.substring(1), dst);
        }
        return 0;
    }

    private void upload(SandboxdClient client, String local, String remote) throws IOException {
        boolean toDir = remote.isEmpty() || remote.endsWith("/");
        if (local.equals("-")) {
            if (toDir) {
                throw new ParameterException(spec.commandLine(), "name the sandbox file to write stdin to (:PATH)");
            }
            client.write(remote, new FileInputStream(FileDescriptor.in));
            return;
        }
        Path file = Path.of(local);
        if (Files.isDirectory(file)) {
            throw new IOException(local + ": is a directory (cp copies one file)");
        }
        if (!Files.exists(file)) {
            throw new NoSuchFileException(local);
        }
        if (toDir) {
            remote = remote + file.getFileName();
        }
        client.write(remote, file, WriteOptions.defaults().mode(modeBits(file)));
    }

    private static int modeBits(Path file) throws IOException {
        int bits = 0;
        for (PosixFilePermission p : Files.getPosixFilePermissions(file)) {
            bits |= 1 << (8 - p.ordinal());
        }
        return bits;
    }

    private void download(SandboxdClient client, String remote, String local) throws IOException {
        if (local.equals("-")) {
            OutputStream out = new FileOutputStream(FileDescriptor.out);
            client.read(remote, out);
            out.flush();
            return;
        }
        Path target = Path.of(local);
        if (Files.isDirectory(target)) {
            String name = Path.of(RestPaths.display(remote)).getFileName() == null
                    ? ""
                    : Path.of(RestPaths.display(remote)).getFileName().toString();
            if (name.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "name the sandbox file to copy (:PATH)");
            }
            target = target.resolve(name);
        }
        Path dir = target.toAbsolutePath().getParent();
        Set<PosixFilePermission> mode = Files.exists(target)
                ? Files.getPosixFilePermissions(target)
                : PosixFilePermissions.fromString("rw-r--r--");
        Path part = Files.createTempFile(dir, "." + target.getFileName() + ".", ".part");
        boolean done = false;
        try {
            try (OutputStream out = Files.newOutputStream(part)) {
                client.read(remote, out);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            Files.setPosixFilePermissions(part, mode);
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(part);
            }
        }
    }
}
