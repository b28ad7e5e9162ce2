package dev.runkora.vk;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdySessionHandler;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A small SPDY/3.1 client of the {@code v4.channel.k8s.io} stream protocol, as the API server
 * speaks it to a kubelet (and as kubectl before WebSockets spoke it to the API server, which then
 * passes the upgraded connection through): TLS trusting any certificate, an upgrade request, then
 * the error, stdin, stdout and stderr streams.
 */
final class SpdyClient {
  private SpdyClient() {}

  /** An upgraded connection with the error, stdout, stderr (and stdin) streams open. */
  static Session open(
      EventLoopGroup group, String host, int port, String uri, String bearer, boolean stdin)
      throws Exception {
    Session s = new Session();
    SslContext ssl =
        SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    CompletableFuture<Void> upgraded = new CompletableFuture<>();
    s.channel =
        new Bootstrap()
            .group(group)
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
            .connect(host, port)
            .sync()
            .channel();
    s.channel.closeFuture().addListener(f -> s.closed.complete(null));
    var request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri);
    request
        .headers()
        .set(HttpHeaderNames.HOST, host + ":" + port)
        .set(HttpHeaderNames.CONTENT_LENGTH, 0)
        .set(HttpHeaderNames.CONNECTION, "Upgrade")
        .set(HttpHeaderNames.UPGRADE, "SPDY/3.1")
        .set("X-Stream-Protocol-Version", KubeletServer.PROTOCOL_V4);
    if (bearer != null) {
      request.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + bearer);
    }
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
