package dev.runkora.sandboxd;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One kept-alive HTTP/1.1 connection that writes each request in one piece: the cheapest client
 * there is, so that benchmarks measure the server.
 */
final class RawHttp implements AutoCloseable {

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  RawHttp(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream());
  }

  /** Sends a request and returns the answer's body; fails on a status other than 2xx. */
  String call(String method, String path, String token, String body) throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    var head = new StringBuilder();
    head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: bench\r\n");
    if (token != null) {
      head.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    head.append("Content-Length: ").append(content.length).append("\r\n\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[headBytes.length + content.length];
    System.arraycopy(headBytes, 0, request, 0, headBytes.length);
    System.arraycopy(content, 0, request, headBytes.length, content.length);
    out.write(request);
    out.flush();
    String status = line();
    int length = 0;
    String header;
    while (!(header = line()).isEmpty()) {
      if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
        length = Integer.parseInt(header.substring(15).trim());
      }
    }
    String answer = new String(in.readNBytes(length), StandardCharsets.UTF_8);
    if (!status.contains(" 2")) {
      throw new IOException(status + " " + answer);
    }
    return answer;
  }

  private String line() throws IOException {
    var line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("connection closed");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
