package dev.runkora.vk;

import dev.runkora.api.ApiException;
import dev.runkora.api.ExecOutput;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Logger;

/**
 * One {@code kubectl exec} or {@code kubectl attach} on the kubelet API: the SPDY/3.1 streams of
 * {@code v4.channel.k8s.io} (the API server opens {@code error}, {@code stdin}, {@code stdout},
 * {@code stderr}, {@code resize} streams; each gets a reply), the session's {@link Work} (a command
 * run by sandboxd's streaming exec, or the sandbox's followed output log) once the requested
 * streams are open, its output sent as data frames, and the outcome written to the error stream as
 * a {@code metav1.Status}. When the caller goes away the work is interrupted, so that a followed
 * log or a command does not outlive it.
 */
final class ExecSession extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(ExecSession.class.getName());
  private static final byte[] EOF = new byte[0];

  /** What a session runs once its streams are open. */
  @FunctionalInterface
  interface Work {
    /**
     * Runs to its end, handing output over while it runs.
     *
     * @param stdin the stdin stream's data until its end; null when no stdin was requested
     * @return the exit code reported on the error stream
     * @throws IOException when a stream it reads breaks (or its thread is interrupted)
     */
    int run(InputStream stdin, ExecOutput output) throws IOException;
  }

  private final Claim claim;
  private final String action;
  private final Work work;
  private final boolean wantStdin;
  private final boolean wantStdout;
  private final boolean wantStderr;
  private final boolean tty;
  private final ExecutorService executor;
  private final LinkedBlockingQueue<byte[]> input = new LinkedBlockingQueue<>();
  private final Set<Integer> streams = new LinkedHashSet<>();
  private int errorId = -1;
  private int stdinId = -1;
  private int stdoutId = -1;
  private int stderrId = -1;
  private boolean started;
  private volatile Future<?> running;
  private volatile boolean gone;

  /**
   * A session running {@code work}; {@code action} names it in failure messages ("executing command
   * in").
   */
  ExecSession(
      Claim claim,
      String action,
      Work work,
      boolean stdin,
      boolean stdout,
      boolean stderr,
      boolean tty,
      ExecutorService executor) {
    this.claim = claim;
    this.action = action;
    this.work = work;
    this.wantStdin = stdin;
    this.wantStdout = stdout;
    this.wantStderr = stderr && !tty;
    this.tty = tty;
    this.executor = executor;
  }

  /**
   * {@code /exec}, and {@code /attach} with stdin: {@code command} by sandboxd's streaming exec.
   */
  static ExecSession command(
      SandboxdPort.Exec exec,
      Claim claim,
      List<String> command,
      boolean stdin,
      boolean stdout,
      boolean stderr,
      boolean tty,
      ExecutorService executor) {
    List<String> argv = List.copyOf(command);
    return new ExecSession(
        claim,
        "executing command in",
        (in, output) -> exec.exec(claim.id(), claim.token(), argv, in, output),
        stdin,
        stdout,
        stderr,
        tty,
        executor);
  }

  /**
   * {@code /attach} without stdin: the sandbox's output log, what is kept and then what its
   * commands write, on the stdout stream (on stderr when only that was requested) until the sandbox
   * is released (exit code 0) or the caller goes away.
   */
  static ExecSession log(
      SandboxdPort.Logs logs,
      Claim claim,
      boolean stdout,
      boolean stderr,
      boolean tty,
      ExecutorService executor) {
    boolean toStdout = stdout || tty;
    return new ExecSession(
        claim,
        "attaching to",
        (in, output) -> {
          try (InputStream log = logs.follow(claim.id(), claim.token())) {
            byte[] buffer = new byte[8192];
            int n;
            while ((n = log.read(buffer)) >= 0) {
              if (n > 0) {
                byte[] chunk = Arrays.copyOf(buffer, n);
                if (toStdout) {
                  output.stdout(chunk);
                } else {
                  output.stderr(chunk);
                }
              }
            }
          }
          return 0;
        },
        false,
        stdout,
        stderr,
        tty,
        executor);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      switch (msg) {
        case SpdySynStreamFrame f -> {
          int id = f.streamId();
          streams.add(id);
          String type = f.headers().getAsString("streamtype");
          // Netty encodes an empty header block as no bytes at all, which Go's SPDY framer (the
          // API server's side) cannot inflate: the reply echoes the stream type.
          DefaultSpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(id);
          reply.headers().set("streamtype", type == null ? "" : type);
          ctx.writeAndFlush(reply);
          switch (type == null ? "" : type) {
            case "error" -> errorId = id;
            case "stdin" -> stdinId = id;
            case "stdout" -> stdoutId = id;
            case "stderr" -> stderrId = id;
            default -> {
              // resize (no TTY in a sandbox exec) and unknown streams are accepted and ignored.
            }
          }
          if (!started && ready()) {
            started = true;
            running = executor.submit(() -> run(ctx));
          }
        }
        case SpdyDataFrame d -> {
          if (d.streamId() == stdinId) {
            ByteBuf content = d.content();
            if (content.isReadable()) {
              byte[] bytes = new byte[content.readableBytes()];
              content.readBytes(bytes);
              input.add(bytes);
            }
            if (d.isLast()) {
              input.add(EOF);
            }
          }
        }
        case SpdyRstStreamFrame r -> {
          if (r.streamId() == stdinId) {
            input.add(EOF);
          }
        }
        case SpdyGoAwayFrame g -> {
          // The caller is leaving: end the work, and reset the streams, since the session
          // handler closes the connection only once no stream is open.
          leave();
          for (int id : streams) {
            ctx.write(new DefaultSpdyRstStreamFrame(id, SpdyStreamStatus.CANCEL));
          }
          ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        default -> {
          // Settings, pings and window updates are the session handler's.
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private boolean ready() {
    return errorId >= 0
        && (!wantStdin || stdinId >= 0)
        && (!wantStdout || stdoutId >= 0)
        && (!wantStderr || stderrId >= 0);
  }

  private void run(ChannelHandlerContext ctx) {
    ExecOutput output =
        new ExecOutput() {
          @Override
          public void stdout(byte[] data) {
            write(ctx, stdoutId, data);
          }

          @Override
          public void stderr(byte[] data) {
            write(ctx, tty ? stdoutId : stderrId, data);
          }
        };
    String status;
    try {
      int code = work.run(stdinId >= 0 ? new Input() : null, output);
      status =
          code == 0
              ? "{\"metadata\":{},\"status\":\"Success\"}"
              : "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with"
                  + " non-zero exit code: exit status "
                  + code
                  + "\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":"
                  + "\"ExitCode\",\"message\":\""
                  + code
                  + "\"}]}}";
    } catch (ApiException | IllegalArgumentException | IOException e) {
      if (gone) {
        // The caller left and the work was interrupted: nobody reads a status.
        return;
      }
      LOG.info(action + " " + claim.id() + " failed: " + e.getMessage());
      status =
          "{\"metadata\":{},\"status\":\"Failure\",\"message\":"
              + io.kubernetes.client.openapi.JSON.serialize(
                  "error " + action + " sandbox " + claim.id() + ": " + e.getMessage())
              + ",\"reason\":\"InternalError\",\"code\":500}";
    }
    write(ctx, errorId, status.getBytes(StandardCharsets.UTF_8));
    ctx.executor()
        .execute(
            () -> {
              for (int id : streams) {
                ctx.write(new DefaultSpdyDataFrame(id).setLast(true));
              }
              ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            });
  }

  private static void write(ChannelHandlerContext ctx, int stream, byte[] data) {
    if (stream < 0 || data.length == 0) {
      return;
    }
    ctx.writeAndFlush(new DefaultSpdyDataFrame(stream, Unpooled.wrappedBuffer(data)));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    leave();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.fine("exec session: " + cause);
    leave();
    ctx.close();
  }

  /** The caller is gone: stdin ends and the work is interrupted (a followed log never ends). */
  private void leave() {
    gone = true;
    input.add(EOF);
    Future<?> f = running;
    if (f != null) {
      f.cancel(true);
    }
  }

  /** The stdin stream's data as an input stream; ends at the stream's FIN. */
  private final class Input extends InputStream {
    private byte[] chunk = new byte[0];
    private int at;
    private boolean done;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      while (at >= chunk.length) {
        if (done) {
          return -1;
        }
        try {
          chunk = input.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
        at = 0;
        if (chunk == EOF) {
          done = true;
          return -1;
        }
      }
      int n = Math.min(len, chunk.length - at);
      System.arraycopy(chunk, at, b, off, n);
      at += n;
      return n;
    }
  }
}
