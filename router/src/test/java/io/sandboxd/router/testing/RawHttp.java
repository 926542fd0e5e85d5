package io.sandboxd.router.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Writes a request byte for byte (for targets java.net.URI refuses) and reads one response. */
public final class RawHttp {
  public record Response(int status, String head, String body) {}

  private RawHttp() {}

  public static Response get(int port, String target) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(30_000);
      String req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
      s.getOutputStream().write(req.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String text = all.toString(StandardCharsets.ISO_8859_1);
      int split = text.indexOf("\r\n\r\n");
      String head = text.substring(0, split);
      int status = Integer.parseInt(head.substring(9, 12));
      return new Response(status, head, text.substring(split + 4));
    }
  }
}
