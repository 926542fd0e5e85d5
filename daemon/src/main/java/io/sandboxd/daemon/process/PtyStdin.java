package io.sandboxd.daemon.process;

import io.sandboxd.daemon.process.os.NativeIo;
import io.sandboxd.daemon.process.os.PtyTerminal;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.Executor;

/** Writes to a PTY master; EOF is ^D (VEOF), so the terminal stays open (runtime-contract §1.5). */
final class PtyStdin extends StdinChannel {
    private static final byte[] VEOF = {4};
    private final PtyTerminal terminal;

    PtyStdin(int processId, PtyTerminal terminal, Executor pool, StdinBudget budget) {
        super(processId, pool, budget);
        this.terminal = terminal;
    }

    @Override
    void writeFully(byte[] data) throws IOException {
        int fd = terminal.masterFd();
        int off = 0;
        while (off < data.length) {
            byte[] part = off == 0 ? data : Arrays.copyOfRange(data, off, data.length);
            long n = NativeIo.write(fd, part, part.length);
            if (n < 0) {
                int e = NativeIo.errno();
                if (e == NativeIo.EINTR || e == NativeIo.EAGAIN) {
                    waitWritable(fd);
                    continue;
                }
                throw new IOException("write to terminal failed: errno " + e);
            }
            off += (int) n;
        }
    }

    private static void waitWritable(int fd) {
        int[] fds = {fd, NativeIo.POLLOUT};
        NativeIo.poll(fds, 1, 1000);
    }

    @Override
    void sendEof() throws IOException {
        writeFully(VEOF);
    }

    @Override
    void release() {
        terminal.closeMaster();
    }
}
