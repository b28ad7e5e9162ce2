package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.bootstrap.Bootstrap;
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
import io.netty.handler.codec.spdy.DefaultSpdyGoAwayFrame;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
    pods = SandboxPodsTest.standalone(sandboxd, dir.resolve("claims.json"));
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
    server =
        new KubeletServer(
            config,
            pods,
            exec,
            logs,
            id -> {
              throw new dev.runkora.api.ApiException(404, "unknown sandbox");
            },
            null,
            List.of());
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
    SpdyClient.Session s = open("/attach/ns/bare/agent?output=1&error=1", false);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> s.text(SpdyClient.Session.STDOUT).equals("kept\n"));
    // Sent below the client's own session handler, which sends one only on close.
    s.channel.pipeline().context("session").writeAndFlush(new DefaultSpdyGoAwayFrame(0)).sync();
    assertThat(followClosed.await(10, TimeUnit.SECONDS)).isTrue();
    s.closed.get(10, TimeUnit.SECONDS);
  }

  @Test
  void attachWithStdinRunsTheContainerCommandLikeExec() throws Exception {
    SpdyClient.Session s = open("/attach/ns/agent/agent?input=1&output=1&error=1", true);
    s.send("echo hi\n");
    s.closed.get(10, TimeUnit.SECONDS);
    assertThat(executed).containsExactly(List.of("/bin/bash", "-l", "-i"));
    assertThat(s.text(SpdyClient.Session.STDOUT)).isEqualTo("echo hi\n");
    assertThat(s.text(SpdyClient.Session.ERROR)).contains("\"status\":\"Success\"");
  }

  @Test
  void attachWithStdinToAPodWithoutACommandIsAShell() throws Exception {
    SpdyClient.Session s = open("/attach/ns/bare/agent?input=1&output=1&tty=1", true);
    s.send("exit\n");
    s.closed.get(10, TimeUnit.SECONDS);
    assertThat(executed).containsExactly(List.of("/bin/sh"));
    assertThat(s.text(SpdyClient.Session.STDOUT)).isEqualTo("exit\n");
  }

  @Test
  void attachWithoutStdinFollowsTheLogUntilTheCallerLeaves() throws Exception {
    SpdyClient.Session s = open("/attach/ns/bare/agent?output=1&error=1", false);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> s.text(SpdyClient.Session.STDOUT).equals("kept\n"));
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

  private SpdyClient.Session open(String uri, boolean stdin) throws Exception {
    return SpdyClient.open(clients, "127.0.0.1", server.port(), uri, null, stdin);
  }
}
