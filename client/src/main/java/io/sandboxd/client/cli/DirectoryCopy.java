package io.sandboxd.client.cli;

import io.sandboxd.client.RestCallException;
import io.sandboxd.client.RestPaths;
import io.sandboxd.client.SandboxdClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code cp -r} through the archive routes (runtime-contract §4.3): the local {@code tar} makes or
 * unpacks the stream (it keeps names as bytes, modes and symlinks exactly as the daemon does),
 * the daemon extracts or walks the other end. Both ends are all or nothing: the daemon stages and
 * renames; locally the tree is unpacked into a hidden directory beside the target and renamed
 * when complete.
 */
final class DirectoryCopy {
    private DirectoryCopy() {}

    static void upload(SandboxdClient client, Path local, String remote) throws IOException {
        if (!Files.isDirectory(local)) {
            throw Files.exists(local)
                    ? new IOException(local + ": not a directory (cp -r copies directories; cp copies files)")
                    : new NoSuchFileException(local.toString());
        }
        String target = RestPaths.relative(remote);
        if (isRemoteDirectory(client, target)) {
            target = (target.isEmpty() || target.endsWith("/") ? target : target + "/")
                    + local.toAbsolutePath().normalize().getFileName();
        }
        Process tar = new ProcessBuilder("tar", "-C", local.toString(), "-c", "-f", "-", ".")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (InputStream in = tar.getInputStream()) {
            client.files().uploadArchive(target, in, false);
        } finally {
            finish(tar, "tar -c");
        }
    }

    private static boolean isRemoteDirectory(SandboxdClient client, String path) {
        try {
            return client.files().stat(path, true).isDirectory();
        } catch (RestCallException e) {
            if (e.httpStatus() == 404) {
                return false;
            }
            throw e;
        }
    }

    static void download(SandboxdClient client, String remote, Path local) throws IOException {
        Path target = local;
        if (Files.isDirectory(local)) {
            Path name = Path.of(RestPaths.display(remote)).getFileName();
            if (name == null) {
                throw new IOException("name the sandbox directory to copy (:PATH), or copy into a new local directory");
            }
            target = local.resolve(name.toString());
        }
        if (Files.exists(target)) {
            throw new IOException(target + ": already exists");
        }
        Path parent = target.toAbsolutePath().getParent();
        Path part = Files.createTempDirectory(parent, "." + target.getFileName() + ".");
        boolean done = false;
        try {
            Process tar = new ProcessBuilder("tar", "-C", part.toString(), "-x", "-p", "-f", "-")
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            try (OutputStream out = tar.getOutputStream()) {
                client.files().downloadArchive(remote, false, out);
            } finally {
                finish(tar, "tar -x");
            }
            Files.move(part, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            done = true;
        } finally {
            if (!done) {
                new ProcessBuilder("rm", "-rf", part.toString()).start();
            }
        }
    }

    private static void finish(Process tar, String what) throws IOException {
        try {
            if (!tar.waitFor(60, TimeUnit.SECONDS)) {
                tar.destroyForcibly();
                throw new IOException(what + " did not finish");
            }
            if (tar.exitValue() != 0) {
                throw new IOException(what + " failed with exit code " + tar.exitValue());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tar.destroyForcibly();
            throw new IOException(what + ": interrupted", e);
        }
    }
}
