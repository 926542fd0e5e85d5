package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Start-up errors name the listener and the reason, never a Java class. */
class StartFailureTest {
    @Test
    void aPortInUseNamesTheListenerAndSaysInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket again = new ServerSocket()) {
            BindException bind = null;
            try {
                again.bind(taken.getLocalSocketAddress());
            } catch (BindException e) {
                bind = e;
            }
            assertThat(bind).isNotNull();
            String m = StartFailure.listener(
                    "REST", "127.0.0.1", taken.getLocalPort(), new IOException("Failed to bind", bind));
            assertThat(m)
                    .isEqualTo("REST listener 127.0.0.1:" + taken.getLocalPort()
                            + ": address already in use (another process listens on port " + taken.getLocalPort()
                            + ")");
        }
    }

    @Test
    void fileErrorsAreWordsNotClassNames() {
        assertThat(StartFailure.io(new AccessDeniedException("/x"))).isEqualTo("permission denied");
        assertThat(StartFailure.io(new FileSystemException("/x", null, "Read-only file system")))
                .isEqualTo("Read-only file system");
    }

    @Test
    void withoutRootDirTheDaemonSaysWhatItUses() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main.Parsed p = Main.parse(
                new String[0],
                Map.of(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = err.toString(StandardCharsets.UTF_8);
        // /workspace is usable here (a container) or not (a developer's machine): either way the
        // daemon names the directory it uses or failed to use, and no Java class name.
        if (p.config() != null) {
            assertThat(text).contains("sandboxd: no --root-dir (or SANDBOXD_ROOT_DIR) given: using /workspace");
        } else {
            assertThat(text).startsWith("sandboxd: root dir \"/workspace\"").doesNotContain("Exception");
        }
    }
}
