package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

/** An archive upload refused for what the archive holds (400): the message names the entry and why. */
final class ArchiveRefused extends SandboxException {
    ArchiveRefused(String message) {
        super(ErrorKind.INVALID_ARGUMENT, "archive refused, nothing was written: " + message);
    }
}
