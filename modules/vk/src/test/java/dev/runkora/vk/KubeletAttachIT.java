package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyGoAwayFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdySessionHandler;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet API's {@code /attach} and {@code /exec} routes on a real TLS listener, spoken to with
 * SPDY/3.1 as the API server does, over fakes of sandboxd's exec and log (anonymous auth: the
 * reviews are the E2E tests' part).
 */
@Timeout(60)
class KubeletAttachIT {
  @TempDir Path dir;
  final TestingSandboxd sandboxd = new TestingSandboxd();
  final List<List<String>> executed = new CopyOnWriteArrayList<>();
  final CountDownLatch followClosed = new CountDownLatch(1);
  SandboxPods pods;
  KubeletServer server;
  EventLoopGroup clients;

  /** Echoes stdin to stdout, and records the argv. */
  final SandboxdPort.Exec exec =
      (id, token, argv, stdin, output) -> {
        executed.add(argv);
        try {
          if (stdin != null) {
            output.stdout(stdin.readAllBytes());
          }
        } catch (IOException e) {
          throw new dev.runkora.api.ApiException("stdin broke", e);
        }
        return 0;
      };

  /** A log that holds "kept\n" and then waits for more until it is closed or interrupted. */
  final SandboxdPort.Logs logs =
      new SandboxdPort.Logs() {
        @Override
        public byte[] logs(String id, String token) {
          return "kept\n".getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public InputStream follow(String id, String token) {
          return new InputStream() {
            boolean sent;

            @Override
            public int read() throws IOException {
              throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
              if (!sent) {
                sent = true;
                byte[] kept = "kept\n".getBytes(StandardCharsets.UTF_8);
                System.arraycopy(kept, 0, b, off, kept.length);
                return kept.length;
              }
              try {
                Thread.sleep(Duration.ofMinutes(5));
              } catch (InterruptedException e) {
                throw new IOException("interrupted", e);
              }
              return -1;
            }

            @Override
            public void close() {
              followClosed.countDown();
            }
          };
        }
      };

  @BeforeEach
  void start() throws Exception {
    pods =
        new SandboxPods(
            sandboxd,
            new ClaimsFile(dir.resolve("claims.json")),
            (group, version, plural, ns, name) -> new Owners.Lookup.Failed("none"),
            key -> {},
            Clock.systemUTC());
    pods.start();
    V1Pod withCommand = SandboxPodsTest.pod("agent", Map.of(), null);
    withCommand
        .getSpec()
        .setContainers(
            List.of(
                new V1Container()
                    .name("agent")
                    .image("host")
                    .command(List.of("/bin/bash", "-l"))
                    .args(List.of("-i"))));
    pods.createPod(withCommand);
    pods.createPod(SandboxPodsTest.pod("bare", Map.of(), null));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    VkConfig config =
        VkConfig.parse(
            List.of(
                "--anonymous-auth",
                "--listen-addr=127.0.0.1:" + port,
                "--state-path=" + dir.resolve("state.json")),
            Map.of());
    server = new KubeletServer(config, pods, exec, logs, null, List.of());
    server.start();
    clients = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  @AfterEach
  void stop() {
    server.close();
    clients.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    pods.close();
  }

  @Test
  void aGoAwayEndsTheFollowedLogAndTheConnection() throws Exception {
    Session s = open("/attach/ns/bare/agent?output=1&error=1", false);
    await().atMost(Duration.ofSeconds(10)).until(() -> s.text(Session.STDOUT).equals("kept\n"));
    // Sent below the client's own session handler, which sends one only on close.
    s.channel.pipeline().context("session").writeAndFlush(new DefaultSpdyGoAwayFrame(0)).sync();
    assertThat(followClosed.await(10, TimeUnit.SECONDS)).isTrue();
    s.closed.get(10, TimeUnit.SECONDS);
  }

  @Test
  void attachWithStdinRunsTheContainerCommandLikeExec() throws Exception {
    Session s = open("/attach/ns/agent/agent?input=1&output=1&error=1", true);
    s.send("echo hi\n");
    s.closed.get(10, TimeUnit.SECONDS);
    assertThat(executed).containsExactly(List.of("/bin/bash", "-l", "-i"));
    assertThat(s.text(Session.STDOUT)).isEqualTo("echo hi\n");
    assertThat(s.text(Session.ERROR)).contains("\"status\":\"Success\"");
  }

  @Test
  void attachWithStdinToAPodWithoutACommandIsAShell() throws Exception {
    Session s = open("/attach/ns/bare/agent?input=1&output=1&tty=1", true);
    s.send("exit\n");
    s.closed.get(10, TimeUnit.SECONDS);
    assertThat(executed).containsExactly(List.of("/bin/sh"));
    assertThat(s.text(Session.STDOUT)).isEqualTo("exit\n");
  }

  @Test
  void attachWithoutStdinFollowsTheLogUntilTheCallerLeaves() throws Exception {
    Session s = open("/attach/ns/bare/agent?output=1&error=1", false);
    await().atMost(Duration.ofSeconds(10)).until(() -> s.text(Session.STDOUT).equals("kept\n"));
    assertThat(followClosed.getCount()).isEqualTo(1);
    // The caller goes away as the API server's proxy does when kubectl leaves: the connection
    // drops (bypassing the SPDY session, which would wait for its open streams).
    s.channel.pipeline().remove("session");
    s.channel.close().sync();
    // The followed log is left (its reader interrupted, the stream closed), not held forever.
    assertThat(followClosed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(executed).isEmpty();
  }

  @Test
  void attachAndExecAnswerClearErrorsWithoutAnUpgradeAStreamOrASandbox() throws Exception {
    assertThat(plain("/attach/ns/bare/agent?output=1"))
        .startsWith("400 ")
        .contains("attach needs an SPDY/3.1 upgrade");
    assertThat(plain("/attach/ns/bare/agent")).startsWith("400 ").contains("at least 1 of stdin");
    assertThat(plain("/attach/ns/nowhere/agent?output=1"))
        .startsWith("404 ")
        .contains("pod ns/nowhere has no running sandbox on this node");
    assertThat(plain("/exec/ns/bare/agent?output=1&command=true"))
        .startsWith("400 ")
        .contains("exec needs an SPDY/3.1 upgrade");
    assertThat(plain("/portForward/ns/bare")).startsWith("400 ").contains("port forwarding");
  }

  @Test
  void theAttachCommandIsTheNamedContainersCommandAndArgsElseAShell() {
    V1Pod pod = SandboxPodsTest.pod("p", Map.of(), null);
    pod.getSpec()
        .setContainers(
            List.of(
                new V1Container().name("first").args(List.of("ignored")),
                new V1Container().name("second").command(List.of("python3")).args(List.of("-i"))));
    assertThat(KubeletServer.attachCommand(pod, "second")).containsExactly("python3", "-i");
    assertThat(KubeletServer.attachCommand(pod, "first")).containsExactly("/bin/sh");
    assertThat(KubeletServer.attachCommand(pod, "unknown")).containsExactly("/bin/sh");
  }

  // ---- a small SPDY/3.1 client, as the API server speaks to a kubelet ----

  private SslContext tls() throws IOException {
    return SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
  }

  /** One request without an upgrade: "status body". */
  private String plain(String uri) throws Exception {
    CompletableFuture<String> answer = new CompletableFuture<>();
    SslContext ssl = tls();
    Channel ch =
        new Bootstrap()
            .group(clients)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel c) {
                    c.pipeline()
                        .addLast(ssl.newHandler(c.alloc()))
                        .addLast(new HttpClientCodec())
                        .addLast(new HttpObjectAggregator(1 << 16))
                        .addLast(
                            new SimpleChannelInboundHandler<FullHttpResponse>() {
                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext ctx, FullHttpResponse r) {
                                answer.complete(
                                    r.status().code()
                                        + " "
                                        + r.content().toString(StandardCharsets.UTF_8));
                              }
                            });
                  }
                })
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    var request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri);
    request.headers().set(HttpHeaderNames.HOST, "127.0.0.1").set(HttpHeaderNames.CONTENT_LENGTH, 0);
    ch.writeAndFlush(request);
    try {
      return answer.get(10, TimeUnit.SECONDS);
    } finally {
      ch.close();
    }
  }

  /** An upgraded connection with the error, stdout, stderr (and stdin) streams open. */
  private Session open(String uri, boolean stdin) throws Exception {
    Session s = new Session();
    SslContext ssl = tls();
    CompletableFuture<Void> upgraded = new CompletableFuture<>();
    s.channel =
        new Bootstrap()
            .group(clients)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel c) {
                    c.pipeline()
                        .addLast(ssl.newHandler(c.alloc()))
                        .addLast("http", new HttpClientCodec())
                        .addLast("client", s.handler(upgraded));
                  }
                })
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    s.channel.closeFuture().addListener(f -> s.closed.complete(null));
    var request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri);
    request
        .headers()
        .set(HttpHeaderNames.HOST, "127.0.0.1")
        .set(HttpHeaderNames.CONTENT_LENGTH, 0)
        .set(HttpHeaderNames.CONNECTION, "Upgrade")
        .set(HttpHeaderNames.UPGRADE, "SPDY/3.1")
        .set("X-Stream-Protocol-Version", KubeletServer.PROTOCOL_V4);
    s.channel.writeAndFlush(request);
    upgraded.get(10, TimeUnit.SECONDS);
    s.stream(Session.ERROR, "error");
    if (stdin) {
      s.stream(Session.STDIN, "stdin");
    }
    s.stream(Session.STDOUT, "stdout");
    s.stream(Session.STDERR, "stderr");
    return s;
  }

  /** The client side of one upgraded connection; data frames are kept per stream. */
  static final class Session {
    static final int ERROR = 1;
    static final int STDIN = 3;
    static final int STDOUT = 5;
    static final int STDERR = 7;
    final Map<Integer, ByteArrayOutputStream> received = new ConcurrentHashMap<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    Channel channel;

    SimpleChannelInboundHandler<Object> handler(CompletableFuture<Void> upgraded) {
      return new SimpleChannelInboundHandler<>() {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
          if (msg instanceof io.netty.handler.codec.http.HttpResponse r) {
            if (r.status().code() != 101) {
              upgraded.completeExceptionally(new IllegalStateException("answer " + r.status()));
              return;
            }
            var pipeline = ctx.pipeline();
            pipeline.replace("http", "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
            pipeline.addAfter(
                "spdy", "session", new SpdySessionHandler(SpdyVersion.SPDY_3_1, false));
            upgraded.complete(null);
          } else if (msg instanceof SpdyDataFrame d) {
            ByteBuf content = d.content();
            byte[] bytes = new byte[content.readableBytes()];
            content.readBytes(bytes);
            received
                .computeIfAbsent(d.streamId(), k -> new ByteArrayOutputStream())
                .writeBytes(bytes);
          }
        }
      };
    }

    void stream(int id, String type) throws InterruptedException {
      var syn = new DefaultSpdySynStreamFrame(id, 0, (byte) 0);
      syn.headers().set("streamtype", type);
      // The client writes only to stdin; its half of the other streams closes at once.
      syn.setLast(id != STDIN);
      channel.writeAndFlush(syn).sync();
    }

    /** Writes to stdin and ends it. */
    void send(String text) throws InterruptedException {
      channel
          .writeAndFlush(
              new DefaultSpdyDataFrame(
                  STDIN, Unpooled.copiedBuffer(text.getBytes(StandardCharsets.UTF_8))))
          .sync();
      channel.writeAndFlush(new DefaultSpdyDataFrame(STDIN).setLast(true)).sync();
    }

    String text(int stream) {
      ByteArrayOutputStream b = received.get(stream);
      return b == null ? "" : b.toString(StandardCharsets.UTF_8);
    }
  }
}
