package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

/** The signals SendSignal delivers, by their Linux numbers; no other signal reaches a process. */
public enum ProcessSignal {
    SIGINT(2),
    SIGKILL(9),
    SIGTERM(15);

    private final int number;

    ProcessSignal(int number) {
        this.number = number;
    }

    int number() {
        return number;
    }

    /**
     * @param shownAs how the caller named the number, for the error message
     * @throws SandboxException INVALID_ARGUMENT for a number that is not on the list
     */
    public static ProcessSignal of(int number, String shownAs) throws SandboxException {
        return switch (number) {
            case 2 -> SIGINT;
            case 9 -> SIGKILL;
            case 15 -> SIGTERM;
            default ->
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "unsupported or unspecified signal: " + shownAs);
        };
    }
}
