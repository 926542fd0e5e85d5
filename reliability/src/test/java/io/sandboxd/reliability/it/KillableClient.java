package io.sandboxd.reliability.it;

import io.sandboxd.client.FileDownload;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.WriteOptions;
import java.io.InputStream;

/**
 * A client run as its own JVM so a test can {@code kill -9} it mid-transfer, exactly as a crashed
 * client would be; it uses the client library as any Java program would. {@code upload REST_BASE
 * PATH [TOKEN]}: a write announcing 1 GiB (Content-Length), 2 MiB given quickly then a trickle,
 * never finishing. {@code download REST_BASE PATH [TOKEN]}: a read of 1 MiB, then no more reading.
 * Prints {@code READY} once the transfer is under way ({@code EOF} if a download ends first).
 */
public final class KillableClient {
    private static final long ANNOUNCED = 1L << 30;
    private static final int FAST = 2 << 20;

    private KillableClient() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String path = args[2];
        String token = args.length > 3 ? args[3] : null;
        try (SandboxdClient c =
                SandboxdClient.builder().restBase(args[1]).token(token).build()) {
            if (mode.equals("upload")) {
                c.write(path, new Trickle(), ANNOUNCED, WriteOptions.defaults());
                System.out.println("upload ended"); // not expected: the test kills this JVM first
                return;
            }
            try (FileDownload d = c.open(path)) {
                InputStream in = d.body();
                byte[] buf = new byte[64 * 1024];
                long total = 0;
                while (total < (1 << 20)) {
                    int n = in.read(buf);
                    if (n < 0) {
                        System.out.println("EOF");
                        return;
                    }
                    total += n;
                }
                System.out.println("READY");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }

    /** Zeros: 2 MiB as fast as they are read, then READY, then 1 KiB every 200 ms, forever. */
    private static final class Trickle extends InputStream {
        private long given;
        private boolean ready;

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n;
            if (given < FAST) {
                n = (int) Math.min(len, FAST - given);
            } else {
                if (!ready) {
                    ready = true;
                    System.out.println("READY");
                    System.out.flush();
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
                n = Math.min(len, 1024);
            }
            java.util.Arrays.fill(b, off, off + n, (byte) 0);
            given += n;
            return n;
        }
    }
}
