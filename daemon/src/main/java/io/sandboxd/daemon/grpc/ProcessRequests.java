package io.sandboxd.daemon.grpc;

import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.ProcessRequest;
import io.sandboxd.daemon.process.TerminalSize;

/** Wire messages → core requests. uint32 fields are read unsigned. */
final class ProcessRequests {
    private ProcessRequests() {}

    static ProcessRequest of(ProcessConfig config, TerminalSize terminal) {
        return new ProcessRequest(
                config.getCommandList(), config.getEnvVarsMap(), config.hasCwd() ? config.getCwd() : null, terminal);
    }

    static ProcessRequest of(StartRequest req) throws SandboxException {
        TerminalSize terminal = req.hasPty()
                ? TerminalSize.initial(
                        Integer.toUnsignedLong(req.getPty().getCols()),
                        Integer.toUnsignedLong(req.getPty().getRows()))
                : null;
        return of(req.getConfig(), terminal);
    }
}
