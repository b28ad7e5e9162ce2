package dev.runkora.vk;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdySessionHandler;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;

/**
 * The kubelet API on {@code --listen-addr}, TLS only: {@code /healthz}, {@code /pods}, {@code
 * /containerLogs} (followed too), {@code /stats/summary}, {@code /metrics/resource}, and {@code
 * /exec} and {@code /attach} over SPDY/3.1 (the protocol the API server speaks to kubelets, {@code
 * v4.channel.k8s.io}), mapped onto sandboxd's streaming exec (an attach without stdin follows the
 * sandbox's output log instead).
 *
 * <p>Callers are authenticated like a kubelet does it: a client certificate issued by the client CA
 * (the API server presents one with {@code --kubelet-client-certificate}), or a bearer token
 * checked by a TokenReview; then authorized by a SubjectAccessReview on {@code nodes/proxy} (or
 * {@code nodes/log}, {@code nodes/metrics}) of this node. Members of {@code system:masters} skip
 * the review.
 */
final class KubeletServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(KubeletServer.class.getName());
  static final String PROTOCOL_V4 = "v4.channel.k8s.io";

  /** An authenticated caller. */
  record Caller(String user, List<String> groups) {}

  private final VkConfig config;
  private final SandboxPods pods;
  private final SandboxdPort.Exec exec;
  private final SandboxdPort.Logs logs;
  private final SandboxdPort.Stats stats;
  private final Instant startedAt = Instant.now();
  private final ApiClient client;
  private final SSLContext ssl;
  private final boolean clientCertificates;
  private final ExecutorService blocking =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("vk-kubelet-", 0).factory());

  /**
   * Accepted tokens for {@link #TOKEN_TTL} (a kubelet's default webhook cache TTL), so that a
   * deleted service account or an expired token stops working soon, not never.
   */
  private final Map<String, CachedCaller> tokenCache = new ConcurrentHashMap<>();

  static final long TOKEN_TTL = java.util.concurrent.TimeUnit.MINUTES.toNanos(2);

  private record CachedCaller(Caller caller, long until) {}

  private EventLoopGroup group;
  private Channel server;

  KubeletServer(
      VkConfig config,
      SandboxPods pods,
      SandboxdPort.Exec exec,
      SandboxdPort.Logs logs,
      SandboxdPort.Stats stats,
      ApiClient client,
      List<X509Certificate> clientCas)
      throws IOException, GeneralSecurityException {
    this.config = config;
    this.pods = pods;
    this.exec = exec;
    this.logs = logs;
    this.stats = stats;
    this.client = client;
    KeyStore keys = Certificates.serving(config);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, Certificates.PASSWORD);
    TrustManagerFactory tmf = null;
    if (!clientCas.isEmpty()) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int i = 0;
      for (X509Certificate ca : clientCas) {
        trust.setCertificateEntry("ca" + i++, ca);
      }
      tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
    }
    this.clientCertificates = tmf != null;
    this.ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  void start() {
    group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    InetSocketAddress address =
        config.listenHost().isEmpty()
            ? new InetSocketAddress(config.listenPort())
            : new InetSocketAddress(config.listenHost(), config.listenPort());
    try {
      server =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      SSLEngine engine = ssl.createSSLEngine();
                      engine.setUseClientMode(false);
                      engine.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
                      engine.setWantClientAuth(clientCertificates);
                      ch.pipeline()
                          .addLast("ssl", new SslHandler(engine))
                          .addLast("http", new HttpServerCodec())
                          .addLast("aggregate", new HttpObjectAggregator(1 << 20))
                          .addLast("kubelet", new Routes());
                    }
                  })
              .bind(address)
              .sync()
              .channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding " + address, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot listen on --listen-addr (VK_LISTEN_ADDR) " + address + ": " + e.getMessage(), e);
    }
    LOG.info("kubelet API on " + server.localAddress() + " (TLS)");
  }

  /** The HTTP routes; blocking work (reviews, sandboxd) runs on virtual threads. */
  private final class Routes extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      QueryStringDecoder uri = new QueryStringDecoder(request.uri());
      String path = uri.path();
      String method = request.method().name();
      boolean upgrade =
          request.headers().contains(HttpHeaderNames.UPGRADE)
              && request
                  .headers()
                  .get(HttpHeaderNames.UPGRADE)
                  .toLowerCase(Locale.ROOT)
                  .startsWith("spdy/");
      List<String> protocols = request.headers().getAll("X-Stream-Protocol-Version");
      String auth = request.headers().get(HttpHeaderNames.AUTHORIZATION);
      Optional<X509Certificate> peer = peerCertificate(ctx);
      LOG.fine(() -> method + " " + request.uri() + (upgrade ? " (upgrade)" : ""));
      blocking.execute(
          () -> {
            try {
              handle(ctx, method, path, uri.parameters(), upgrade, protocols, auth, peer);
            } catch (RuntimeException e) {
              LOG.warning("kubelet API " + path + ": " + e);
              send(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "text/plain", e.toString());
            }
          });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.fine("kubelet API connection: " + cause);
      ctx.close();
    }
  }

  private Optional<X509Certificate> peerCertificate(ChannelHandlerContext ctx) {
    if (!clientCertificates) {
      return Optional.empty();
    }
    SslHandler handler = (SslHandler) ctx.pipeline().get("ssl");
    try {
      Certificate[] certs = handler.engine().getSession().getPeerCertificates();
      if (certs.length > 0 && certs[0] instanceof X509Certificate cert) {
        return Optional.of(cert);
      }
    } catch (SSLPeerUnverifiedException e) {
      // No client certificate: a token may follow.
    }
    return Optional.empty();
  }

  /** The Prometheus text format's content type, as a kubelet answers it. */
  static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /**
   * The {@code nodes} subresource a caller must be allowed for a path: {@code log} for {@code
   * /containerLogs}, {@code metrics} for {@code /metrics} and below (a kubelet's mapping, and what
   * metrics-server's role grants), {@code proxy} for everything else.
   */
  static String subresource(String path) {
    if (path.startsWith("/containerLogs/")) {
      return "log";
    }
    if (path.equals("/metrics") || path.startsWith("/metrics/")) {
      return "metrics";
    }
    return "proxy";
  }

  private void handle(
      ChannelHandlerContext ctx,
      String method,
      String path,
      Map<String, List<String>> query,
      boolean upgrade,
      List<String> protocols,
      String authorization,
      Optional<X509Certificate> peer) {
    if (path.equals("/healthz")) {
      send(ctx, HttpResponseStatus.OK, "text/plain", "ok");
      return;
    }
    String subresource = subresource(path);
    Optional<Caller> caller = authenticate(peer, authorization);
    if (caller.isEmpty()) {
      send(ctx, HttpResponseStatus.UNAUTHORIZED, "text/plain", "Unauthorized");
      return;
    }
    if (!authorized(caller.get(), method, subresource)) {
      send(
          ctx,
          HttpResponseStatus.FORBIDDEN,
          "text/plain",
          "Forbidden (user="
              + caller.get().user()
              + ", verb="
              + verb(method)
              + ", resource=nodes, subresource="
              + subresource
              + ")");
      return;
    }
    String[] parts = path.split("/");
    if (path.equals("/pods") || path.equals("/pods/")) {
      List<V1Pod> list = new ArrayList<>();
      for (V1Pod p : pods.pods()) {
        V1Pod copy = JSON.deserialize(JSON.serialize(p), V1Pod.class);
        pods.status(SandboxPods.key(p)).ifPresent(copy::setStatus);
        list.add(copy);
      }
      send(
          ctx,
          HttpResponseStatus.OK,
          "application/json",
          JSON.serialize(new V1PodList().apiVersion("v1").kind("PodList").items(list)));
      return;
    }
    if (path.startsWith("/containerLogs/") && parts.length >= 5) {
      String key = parts[2] + "/" + parts[3];
      if (pods.pod(key).isEmpty()) {
        send(
            ctx, HttpResponseStatus.NOT_FOUND, "text/plain", "pod " + key + " is not on this node");
        return;
      }
      containerLogs(ctx, key, query);
      return;
    }
    if (path.startsWith("/exec/") && parts.length >= 5) {
      startExec(ctx, parts[2] + "/" + parts[3], query, upgrade, protocols);
      return;
    }
    if (path.startsWith("/attach/") && parts.length >= 5) {
      startAttach(ctx, parts[2] + "/" + parts[3], parts[4], query, upgrade, protocols);
      return;
    }
    if (path.startsWith("/portForward/")) {
      send(
          ctx,
          HttpResponseStatus.BAD_REQUEST,
          "text/plain",
          "port forwarding is not supported by vk-sandbox: a sandbox's ports are reached through"
              + " its sandboxd node (the Pod IP)");
      return;
    }
    if (path.equals("/stats/summary") || path.equals("/stats/summary/")) {
      send(ctx, HttpResponseStatus.OK, "application/json", JSON.serialize(summary()));
      return;
    }
    if (path.equals("/metrics/resource") || path.equals("/metrics/resource/")) {
      send(ctx, HttpResponseStatus.OK, METRICS_TYPE, resourceMetrics());
      return;
    }
    send(ctx, HttpResponseStatus.NOT_FOUND, "text/plain", "404 page not found");
  }

  /**
   * {@code /containerLogs}: the sandbox's output log, what the commands run in it (through exec)
   * wrote to stdout and stderr. {@code tailLines}, then {@code limitBytes} (the first bytes of what
   * is left) are applied as a kubelet does; {@code follow=true} then streams what is written from
   * then on. {@code timestamps} and {@code sinceSeconds} are checked but not applied: sandboxd
   * keeps no time per line.
   */
  private void containerLogs(
      ChannelHandlerContext ctx, String key, Map<String, List<String>> query) {
    long tailLines;
    long limitBytes;
    boolean follow;
    try {
      tailLines = logOption(query, "tailLines", 0);
      limitBytes = logOption(query, "limitBytes", 1);
      logOption(query, "sinceSeconds", 1);
      follow = bool(query, "follow");
      bool(query, "timestamps");
      bool(query, "previous");
    } catch (IllegalArgumentException e) {
      send(ctx, HttpResponseStatus.BAD_REQUEST, "text/plain", e.getMessage());
      return;
    }
    Optional<Claim> claim = pods.settled(key);
    if (claim.isEmpty()) {
      send(ctx, HttpResponseStatus.OK, "text/plain", "");
      return;
    }
    if (follow) {
      followLogs(ctx, key, claim.get(), tailLines, limitBytes);
      return;
    }
    byte[] log;
    try {
      log = logs.logs(claim.get().id(), claim.get().token());
    } catch (dev.runkora.api.ApiException e) {
      sendLogError(ctx, key, e);
      return;
    }
    if (tailLines >= 0) {
      log = tailLines(log, tailLines);
    }
    if (limitBytes >= 0 && limitBytes < log.length) {
      // As a kubelet: the first limitBytes of what is selected.
      log = java.util.Arrays.copyOf(log, (int) limitBytes);
    }
    send(ctx, HttpResponseStatus.OK, "text/plain", log);
  }

  private static void sendLogError(
      ChannelHandlerContext ctx, String key, dev.runkora.api.ApiException e) {
    send(
        ctx,
        e.isNotFound() ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.BAD_GATEWAY,
        "text/plain",
        "sandbox log of " + key + ": " + e.getMessage());
  }

  /**
   * {@code /containerLogs?follow=true}: the kept log (its last {@code tailLines} lines when given),
   * then what the sandbox's commands write, as a chunked answer flushed as it arrives, until the
   * caller goes away, the claim ends (sandboxd ends the followed stream) or {@code limitBytes} were
   * sent. The stream is sandboxd's {@code ?follow=true}, the one a stdin-less attach follows.
   */
  private void followLogs(
      ChannelHandlerContext ctx, String key, Claim claim, long tailLines, long limitBytes) {
    byte[] head = new byte[0];
    long skip = 0;
    InputStream in;
    try {
      if (tailLines >= 0) {
        // The followed stream starts with everything kept: the tail is cut from a snapshot, and
        // the snapshot's bytes are skipped at the stream's start (what came after it follows).
        byte[] kept = logs.logs(claim.id(), claim.token());
        head = tailLines(kept, tailLines);
        skip = kept.length;
      }
      in = logs.follow(claim.id(), claim.token());
    } catch (dev.runkora.api.ApiException e) {
      sendLogError(ctx, key, e);
      return;
    }
    // The caller leaving must end the follow, which otherwise lasts as long as the claim.
    Thread reader = Thread.currentThread();
    ChannelFutureListener leave =
        f -> {
          reader.interrupt();
          closeQuietly(in);
        };
    ctx.channel().closeFuture().addListener(leave);
    try (in) {
      HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
      HttpUtil.setTransferEncodingChunked(r, true);
      await(ctx.writeAndFlush(r));
      long left = limitBytes < 0 ? Long.MAX_VALUE : limitBytes;
      left = writeChunk(ctx, head, 0, head.length, left);
      byte[] buffer = new byte[8192];
      int n;
      while (left > 0 && (n = in.read(buffer)) >= 0) {
        int from = (int) Math.min(skip, n);
        skip -= from;
        left = writeChunk(ctx, buffer, from, n - from, left);
      }
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    } catch (IOException | dev.runkora.api.ApiException e) {
      if (ctx.channel().isActive()) {
        // Broken mid-answer: the status line is gone, so the connection is closed.
        LOG.info("following the log of " + key + " broke: " + e.getMessage());
        ctx.close();
      }
    } finally {
      ctx.channel().closeFuture().removeListener(leave);
    }
  }

  /**
   * Sends {@code length} bytes (at most {@code left}) as one chunk and waits until written, so a
   * slow caller slows the follow instead of filling memory.
   *
   * @return what is left of the limit
   */
  private static long writeChunk(
      ChannelHandlerContext ctx, byte[] bytes, int from, int length, long left) throws IOException {
    int n = (int) Math.min(length, left);
    if (n <= 0) {
      return left;
    }
    await(ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(bytes, from, n))));
    return left - n;
  }

  private static void await(io.netty.channel.ChannelFuture f) throws IOException {
    try {
      f.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (!f.isSuccess()) {
      throw new IOException("the caller went away", f.cause());
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException | RuntimeException e) {
      LOG.fine("closing a followed log: " + e);
    }
  }

  /**
   * A log option as a kubelet checks it: absent is -1, otherwise an integer of at least {@code
   * min}.
   *
   * @throws IllegalArgumentException with the message to answer (400)
   */
  static long logOption(Map<String, List<String>> query, String name, long min) {
    List<String> v = query.get(name);
    if (v == null || v.isEmpty()) {
      return -1;
    }
    String s = v.getFirst();
    long n;
    try {
      n = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, not '" + s + "'", e);
    }
    if (n < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", not " + n);
    }
    return n;
  }

  /**
   * A boolean query parameter as the API server's query decoding reads it: absent or empty is
   * false.
   *
   * @throws IllegalArgumentException for anything but true/false/1/0
   */
  static boolean bool(Map<String, List<String>> query, String name) {
    List<String> v = query.get(name);
    if (v == null || v.isEmpty() || v.getFirst().isEmpty()) {
      return false;
    }
    return switch (v.getFirst().toLowerCase(Locale.ROOT)) {
      case "true", "1" -> true;
      case "false", "0" -> false;
      default ->
          throw new IllegalArgumentException(
              name + " must be true or false, not '" + v.getFirst() + "'");
    };
  }

  /** How long {@code /stats/summary} and {@code /metrics/resource} wait for the sandboxes. */
  static final java.time.Duration STATS_TIMEOUT = java.time.Duration.ofSeconds(2);

  /**
   * The shortest time between two CPU samples of a sandbox that {@code usageNanoCores} is computed
   * over: two calls a few milliseconds apart would make a rate out of noise.
   */
  static final java.time.Duration RATE_WINDOW = java.time.Duration.ofSeconds(1);

  /**
   * One settled claim of a gathering.
   *
   * @param stats its figures, empty when sandboxd did not answer in time or failed
   */
  private record Gathered(
      V1Pod pod, Claim claim, Optional<dev.runkora.api.SandboxStats> stats, Instant at) {}

  /**
   * The figures of every settled claim, asked of sandboxd at once.
   *
   * @param at when the answers were in
   * @param complete whether every settled claim answered
   */
  private record Gathering(Instant at, List<Gathered> sandboxes, boolean complete) {}

  /**
   * A sandbox's CPU counter, kept per claim so that {@code usageNanoCores} is the rate between two
   * samples (as a kubelet computes it between two housekeeping reads).
   *
   * @param lastNanos the highest counter seen, what the node's counter holds of this sandbox
   * @param baseNanos the counter the next rate is computed from, read at {@code baseAt}
   * @param nanoCores the last rate computed, -1 before a second sample
   */
  private record CpuSample(long lastNanos, long baseNanos, Instant baseAt, long nanoCores) {}

  /** Per claim id; guarded by itself, with {@link #releasedCpuNanos}. */
  private final Map<String, CpuSample> cpuSamples = new java.util.HashMap<>();

  /**
   * The last CPU counters of claims that have ended, so that the node's counter (the sum of its
   * sandboxes') does not go back when a sandbox is released.
   */
  private long releasedCpuNanos;

  /**
   * Asks sandboxd for the figures of every settled claim concurrently; whatever has not answered
   * within {@link #STATS_TIMEOUT}, or failed, has no figures. Shared by {@code /stats/summary} and
   * {@code /metrics/resource}.
   */
  private Gathering gather() {
    record Held(V1Pod pod, Claim claim) {}
    List<Held> held = new ArrayList<>();
    for (V1Pod p : pods.pods()) {
      pods.settled(SandboxPods.key(p)).ifPresent(c -> held.add(new Held(p, c)));
    }
    List<java.util.concurrent.Callable<dev.runkora.api.SandboxStats>> calls = new ArrayList<>();
    for (Held h : held) {
      calls.add(() -> stats.stats(h.claim().id()));
    }
    List<java.util.concurrent.Future<dev.runkora.api.SandboxStats>> answers;
    try {
      answers =
          calls.isEmpty()
              ? List.of()
              : blocking.invokeAll(
                  calls, STATS_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading sandbox stats", e);
    }
    Instant now = Instant.now();
    List<Gathered> gathered = new ArrayList<>();
    boolean complete = true;
    for (int i = 0; i < held.size(); i++) {
      Held h = held.get(i);
      var answer = answers.get(i);
      if (answer.state() != java.util.concurrent.Future.State.SUCCESS) {
        complete = false;
        String why =
            answer.state() == java.util.concurrent.Future.State.FAILED
                ? String.valueOf(answer.exceptionNow().getMessage())
                : "no answer within " + STATS_TIMEOUT.toMillis() + " ms";
        LOG.fine("stats of " + h.claim().id() + " left out: " + why);
        gathered.add(new Gathered(h.pod(), h.claim(), Optional.empty(), now));
        continue;
      }
      dev.runkora.api.SandboxStats s = answer.resultNow();
      // An answer without measured_at (the reference's may leave it out) is dated by its arrival.
      Instant at = s.measuredAt().equals(Instant.EPOCH) ? now : s.measuredAt();
      gathered.add(new Gathered(h.pod(), h.claim(), Optional.of(s), at));
    }
    return new Gathering(now, gathered, complete);
  }

  /**
   * The CPU figures of a gathering.
   *
   * @param nanoCores per claim id, the rate where two samples are known
   * @param nodeCpuNanos the node's counter (the sandboxes' plus those of ended claims), -1 when not
   *     every sandbox's CPU time is known
   */
  private record CpuFigures(Map<String, Long> nanoCores, long nodeCpuNanos) {}

  /**
   * Records a gathering's CPU counters: computes each sandbox's rate since its previous sample at
   * least {@link #RATE_WINDOW} older, and forgets the claims that have ended (adding their last
   * counter to the node's).
   */
  private CpuFigures sampleCpu(Gathering g) {
    // The claims settled now: a gathering that started before a claim was made, or that read a
    // claim which has ended since, must neither forget nor bring back a sample (the node's
    // counter would count a sandbox twice).
    java.util.Set<String> live = new java.util.HashSet<>();
    for (V1Pod p : pods.pods()) {
      pods.settled(SandboxPods.key(p)).ifPresent(c -> live.add(c.id()));
    }
    Map<String, Long> rates = new java.util.HashMap<>();
    long node = 0;
    boolean nodeKnown = true;
    synchronized (cpuSamples) {
      for (Gathered s : g.sandboxes()) {
        String id = s.claim().id();
        if (s.stats().isEmpty() || !s.stats().get().cpuUsageMeasured()) {
          nodeKnown = false;
          continue;
        }
        if (!live.contains(id)) {
          continue; // Ended meanwhile: its last counter is in the released total below.
        }
        long cpu = s.stats().get().cpuUsageNs();
        CpuSample previous = cpuSamples.get(id);
        CpuSample next;
        if (previous == null) {
          next = new CpuSample(cpu, cpu, s.at(), -1);
        } else if (cpu < previous.lastNanos()) {
          next = previous; // An older answer, from a concurrent call.
        } else {
          long elapsed = java.time.Duration.between(previous.baseAt(), s.at()).toNanos();
          if (elapsed < RATE_WINDOW.toNanos()) {
            // Too close to the base sample: the counter moves on, the rate waits for the window.
            next =
                new CpuSample(cpu, previous.baseNanos(), previous.baseAt(), previous.nanoCores());
          } else {
            long rate = (long) ((cpu - previous.baseNanos()) * 1e9 / elapsed);
            next = new CpuSample(cpu, cpu, s.at(), rate);
          }
        }
        cpuSamples.put(id, next);
        node += next.lastNanos();
        if (next.nanoCores() >= 0) {
          rates.put(id, next.nanoCores());
        }
      }
      var ended = cpuSamples.entrySet().iterator();
      while (ended.hasNext()) {
        var e = ended.next();
        if (!live.contains(e.getKey())) {
          releasedCpuNanos += e.getValue().lastNanos();
          ended.remove();
        }
      }
      node += releasedCpuNanos;
    }
    return new CpuFigures(rates, nodeKnown ? node : -1);
  }

  /**
   * {@code /stats/summary}: the kubelet Summary API's shape (what older metrics-server releases
   * read), from sandboxd's per-sandbox stats asked concurrently. A sandbox whose figures did not
   * come within {@link #STATS_TIMEOUT} (or failed) is left out; one whose memory or CPU was not
   * measured is listed without that figure. The node's figures are the sums of its sandboxes',
   * given only when every sandbox's is known.
   */
  Map<String, Object> summary() {
    Gathering g = gather();
    CpuFigures cpu = sampleCpu(g);
    Instant now = g.at();
    List<Map<String, Object>> podList = new ArrayList<>();
    long nodeMemory = 0;
    boolean nodeKnown = g.complete();
    for (Gathered h : g.sandboxes()) {
      if (h.stats().isEmpty()) {
        continue;
      }
      dev.runkora.api.SandboxStats s = h.stats().get();
      Map<String, Object> memory = null;
      if (s.memUsedMeasured()) {
        memory = memory(h.at(), s);
        nodeMemory += s.memUsedBytes();
      } else {
        nodeKnown = false;
      }
      Map<String, Object> cpuStats = null;
      if (s.cpuUsageMeasured()) {
        cpuStats = cpu(h.at(), s.cpuUsageNs(), cpu.nanoCores().get(h.claim().id()));
      }
      podList.add(podStats(h.pod(), h.claim(), memory, cpuStats));
    }
    Map<String, Object> node = new java.util.LinkedHashMap<>();
    node.put("nodeName", config.nodeName());
    node.put("startTime", startedAt.toString());
    if (cpu.nodeCpuNanos() >= 0) {
      Long nanoCores = null;
      if (cpu.nanoCores().size() == g.sandboxes().size()) {
        nanoCores = cpu.nanoCores().values().stream().mapToLong(Long::longValue).sum();
      }
      node.put("cpu", cpu(now, cpu.nodeCpuNanos(), nanoCores));
    }
    if (nodeKnown) {
      Map<String, Object> memory = new java.util.LinkedHashMap<>();
      memory.put("time", now.toString());
      memory.put("usageBytes", nodeMemory);
      memory.put("workingSetBytes", nodeMemory);
      node.put("memory", memory);
    }
    Map<String, Object> summary = new java.util.LinkedHashMap<>();
    summary.put("node", node);
    summary.put("pods", podList);
    return summary;
  }

  /** A CPU figure of the Summary API; {@code usageNanoCores} only when a rate is known. */
  private static Map<String, Object> cpu(Instant at, long cpuNanos, Long nanoCores) {
    Map<String, Object> c = new java.util.LinkedHashMap<>();
    c.put("time", at.toString());
    if (nanoCores != null) {
      c.put("usageNanoCores", nanoCores);
    }
    c.put("usageCoreNanoSeconds", cpuNanos);
    return c;
  }

  /**
   * A memory figure: sandboxd's one number is both the usage and the working set; what is left of
   * the size tier is the available memory.
   */
  private static Map<String, Object> memory(Instant at, dev.runkora.api.SandboxStats s) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("time", at.toString());
    if (s.memTotalBytes() > 0) {
      m.put("availableBytes", Math.max(0, s.memTotalBytes() - s.memUsedBytes()));
    }
    m.put("usageBytes", s.memUsedBytes());
    m.put("workingSetBytes", s.memUsedBytes());
    return m;
  }

  /**
   * One Pod of the summary. Its sandbox is the whole workload, so the figures are the Pod's and its
   * first container's (further containers are listed without figures, not counted twice).
   */
  private static Map<String, Object> podStats(
      V1Pod pod, Claim claim, Map<String, Object> memory, Map<String, Object> cpu) {
    // The Pod's status.startTime, to the second as the status renders it.
    String start = SandboxPods.time(claim.claimedAt()).toInstant().toString();
    List<Map<String, Object>> containers = new ArrayList<>();
    for (String name : containerNames(pod)) {
      Map<String, Object> c = new java.util.LinkedHashMap<>();
      c.put("name", name);
      c.put("startTime", start);
      if (containers.isEmpty()) {
        if (cpu != null) {
          c.put("cpu", cpu);
        }
        if (memory != null) {
          c.put("memory", memory);
        }
      }
      containers.add(c);
    }
    Map<String, Object> ref = new java.util.LinkedHashMap<>();
    ref.put("name", pod.getMetadata().getName());
    ref.put("namespace", pod.getMetadata().getNamespace());
    ref.put("uid", pod.getMetadata().getUid() == null ? "" : pod.getMetadata().getUid());
    Map<String, Object> p = new java.util.LinkedHashMap<>();
    p.put("podRef", ref);
    p.put("startTime", start);
    p.put("containers", containers);
    if (cpu != null) {
      p.put("cpu", cpu);
    }
    if (memory != null) {
      p.put("memory", memory);
    }
    return p;
  }

  private static List<String> containerNames(V1Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return List.of();
    }
    return pod.getSpec().getContainers().stream()
        .map(io.kubernetes.client.openapi.models.V1Container::getName)
        .toList();
  }

  /**
   * {@code /metrics/resource}: the kubelet's resource metrics in the Prometheus text format (what
   * metrics-server 0.6 and later scrape), from the same gathering as the summary. Each sample
   * carries its measurement time in milliseconds, as a kubelet writes it, so a reader computes CPU
   * rates between real measurements. The sandbox is the Pod's one workload: its figures are the
   * Pod's and its first container's; further containers get no series, since a reader that sees a
   * container without CPU or memory drops the whole Pod. {@code scrape_error} is 1 when a sandbox
   * did not answer.
   */
  String resourceMetrics() {
    Gathering g = gather();
    CpuFigures cpu = sampleCpu(g);
    var containerCpu = new StringBuilder();
    var containerMemory = new StringBuilder();
    var containerStart = new StringBuilder();
    var podCpu = new StringBuilder();
    var podMemory = new StringBuilder();
    long nodeMemory = 0;
    boolean nodeMemoryKnown = g.complete();
    for (Gathered h : g.sandboxes()) {
      if (h.stats().isEmpty()) {
        continue;
      }
      dev.runkora.api.SandboxStats s = h.stats().get();
      if (!s.memUsedMeasured()) {
        nodeMemoryKnown = false;
      } else {
        nodeMemory += s.memUsedBytes();
      }
      if (!s.memUsedMeasured() && !s.cpuUsageMeasured()) {
        continue;
      }
      String ns = h.pod().getMetadata().getNamespace();
      String name = h.pod().getMetadata().getName();
      String podLabels = "{namespace=\"" + label(ns) + "\",pod=\"" + label(name) + "\"}";
      long ms = h.at().toEpochMilli();
      List<String> names = containerNames(h.pod());
      String containerLabels =
          names.isEmpty()
              ? null
              : "{container=\""
                  + label(names.getFirst())
                  + "\",namespace=\""
                  + label(ns)
                  + "\",pod=\""
                  + label(name)
                  + "\"}";
      if (s.cpuUsageMeasured()) {
        String seconds = seconds(s.cpuUsageNs());
        sample(podCpu, "pod_cpu_usage_seconds_total", podLabels, seconds, ms);
        if (containerLabels != null) {
          sample(containerCpu, "container_cpu_usage_seconds_total", containerLabels, seconds, ms);
        }
      }
      if (s.memUsedMeasured()) {
        String bytes = Long.toString(s.memUsedBytes());
        sample(podMemory, "pod_memory_working_set_bytes", podLabels, bytes, ms);
        if (containerLabels != null) {
          sample(containerMemory, "container_memory_working_set_bytes", containerLabels, bytes, ms);
        }
      }
      if (containerLabels != null) {
        // The Pod's status.startTime, which is when the claim was made.
        String start = Long.toString(SandboxPods.time(h.claim().claimedAt()).toEpochSecond());
        sample(containerStart, "container_start_time_seconds", containerLabels, start, ms);
      }
    }
    long nodeMs = g.at().toEpochMilli();
    var out = new StringBuilder();
    family(
        out,
        "container_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the container in core-seconds",
        containerCpu);
    family(
        out,
        "container_memory_working_set_bytes",
        "gauge",
        "Current working set of the container in bytes",
        containerMemory);
    family(
        out,
        "container_start_time_seconds",
        "gauge",
        "Start time of the container since unix epoch in seconds",
        containerStart);
    var nodeCpu = new StringBuilder();
    if (cpu.nodeCpuNanos() >= 0) {
      sample(nodeCpu, "node_cpu_usage_seconds_total", "", seconds(cpu.nodeCpuNanos()), nodeMs);
    }
    family(
        out,
        "node_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the node in core-seconds",
        nodeCpu);
    var nodeMem = new StringBuilder();
    if (nodeMemoryKnown) {
      sample(nodeMem, "node_memory_working_set_bytes", "", Long.toString(nodeMemory), nodeMs);
    }
    family(
        out,
        "node_memory_working_set_bytes",
        "gauge",
        "Current working set of the node in bytes",
        nodeMem);
    family(
        out,
        "pod_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the pod in core-seconds",
        podCpu);
    family(
        out,
        "pod_memory_working_set_bytes",
        "gauge",
        "Current working set of the pod in bytes",
        podMemory);
    family(
        out,
        "scrape_error",
        "gauge",
        "1 if there was an error while getting container metrics, 0 otherwise",
        new StringBuilder("scrape_error " + (g.complete() ? 0 : 1) + "\n"));
    return out.toString();
  }

  /** One metric family, left out when it has no samples (as a Prometheus registry does). */
  private static void family(
      StringBuilder out, String name, String type, String help, StringBuilder samples) {
    if (samples.isEmpty()) {
      return;
    }
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    out.append(samples);
  }

  private static void sample(
      StringBuilder out, String name, String labels, String value, long timestampMs) {
    out.append(name)
        .append(labels)
        .append(' ')
        .append(value)
        .append(' ')
        .append(timestampMs)
        .append('\n');
  }

  /** Nanoseconds as exact decimal seconds ("1.5", "0.000042"), which a Prometheus reader parses. */
  static String seconds(long nanos) {
    return java.math.BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
  }

  /** A label value escaped as the text format wants it. */
  static String label(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** The last {@code lines} lines of a log (a last line without its newline counts). */
  static byte[] tailLines(byte[] log, long lines) {
    int end = log.length;
    if (end > 0 && log[end - 1] == '\n') {
      end--;
    }
    long seen = 0;
    for (int i = end - 1; i >= 0; i--) {
      if (log[i] == '\n' && ++seen == lines) {
        return java.util.Arrays.copyOfRange(log, i + 1, log.length);
      }
    }
    return lines == 0 ? new byte[0] : log;
  }

  private void startExec(
      ChannelHandlerContext ctx,
      String key,
      Map<String, List<String>> query,
      boolean upgrade,
      List<String> protocols) {
    List<String> command = query.getOrDefault("command", List.of());
    if (command.isEmpty()) {
      send(
          ctx, HttpResponseStatus.BAD_REQUEST, "text/plain", "you must specify at least 1 command");
      return;
    }
    stream(
        ctx,
        "exec",
        key,
        query,
        upgrade,
        protocols,
        claim ->
            ExecSession.command(
                exec,
                claim,
                command,
                flag(query, "input"),
                flag(query, "output"),
                flag(query, "error"),
                flag(query, "tty"),
                blocking));
  }

  /**
   * {@code /attach}. A sandbox has no main process, so: with stdin, an interactive session (the
   * container's {@code command} and {@code args}, else {@code /bin/sh}) run like {@code /exec};
   * without stdin, the sandbox's output log followed on the stdout stream.
   */
  private void startAttach(
      ChannelHandlerContext ctx,
      String key,
      String container,
      Map<String, List<String>> query,
      boolean upgrade,
      List<String> protocols) {
    Optional<V1Pod> pod = pods.pod(key);
    List<String> command = pod.map(p -> attachCommand(p, container)).orElse(List.of());
    boolean stdin = flag(query, "input");
    stream(
        ctx,
        "attach",
        key,
        query,
        upgrade,
        protocols,
        claim ->
            stdin
                ? ExecSession.command(
                    exec,
                    claim,
                    command,
                    true,
                    flag(query, "output"),
                    flag(query, "error"),
                    flag(query, "tty"),
                    blocking)
                : ExecSession.log(
                    logs,
                    claim,
                    flag(query, "output"),
                    flag(query, "error"),
                    flag(query, "tty"),
                    blocking));
  }

  /**
   * What an interactive attach runs: the named container's (else the first container's) {@code
   * command} followed by its {@code args} when it gives a command, else {@code /bin/sh}.
   */
  static List<String> attachCommand(V1Pod pod, String container) {
    List<io.kubernetes.client.openapi.models.V1Container> containers =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    var chosen =
        containers.stream()
            .filter(c -> container.equals(c.getName()))
            .findFirst()
            .or(() -> containers.stream().findFirst());
    if (chosen.isEmpty()
        || chosen.get().getCommand() == null
        || chosen.get().getCommand().isEmpty()) {
      return List.of("/bin/sh");
    }
    List<String> argv = new ArrayList<>(chosen.get().getCommand());
    if (chosen.get().getArgs() != null) {
      argv.addAll(chosen.get().getArgs());
    }
    return List.copyOf(argv);
  }

  /**
   * The part {@code /exec} and {@code /attach} share: the pod's settled claim, at least one stream,
   * the SPDY/3.1 upgrade with {@code v4.channel.k8s.io}, then the connection handed to the session
   * made for the claim.
   */
  private void stream(
      ChannelHandlerContext ctx,
      String what,
      String key,
      Map<String, List<String>> query,
      boolean upgrade,
      List<String> protocols,
      java.util.function.Function<Claim, ExecSession> session) {
    if (!flag(query, "input") && !flag(query, "output") && !flag(query, "error")) {
      send(
          ctx,
          HttpResponseStatus.BAD_REQUEST,
          "text/plain",
          "you must specify at least 1 of stdin, stdout, stderr");
      return;
    }
    Optional<Claim> claim = pods.settled(key);
    if (claim.isEmpty()) {
      send(
          ctx,
          HttpResponseStatus.NOT_FOUND,
          "text/plain",
          "pod " + key + " has no running sandbox on this node");
      return;
    }
    if (!upgrade) {
      send(ctx, HttpResponseStatus.BAD_REQUEST, "text/plain", what + " needs an SPDY/3.1 upgrade");
      return;
    }
    boolean offered =
        protocols.stream()
            .flatMap(p -> List.of(p.split(",")).stream())
            .map(String::strip)
            .anyMatch(PROTOCOL_V4::equals);
    if (!offered) {
      send(
          ctx,
          HttpResponseStatus.FORBIDDEN,
          "text/plain",
          "no supported stream protocol offered (this node speaks " + PROTOCOL_V4 + ")");
      return;
    }
    ExecSession handler = session.apply(claim.get());
    ctx.executor()
        .execute(
            () -> {
              FullHttpResponse r =
                  new DefaultFullHttpResponse(
                      HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
              r.headers()
                  .set(HttpHeaderNames.CONNECTION, "Upgrade")
                  .set(HttpHeaderNames.UPGRADE, "SPDY/3.1")
                  .set("X-Stream-Protocol-Version", PROTOCOL_V4);
              ctx.writeAndFlush(r);
              var pipeline = ctx.pipeline();
              pipeline.remove("aggregate");
              pipeline.replace("http", "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
              pipeline.addAfter(
                  "spdy", "session", new SpdySessionHandler(SpdyVersion.SPDY_3_1, true));
              pipeline.replace("kubelet", what, handler);
            });
  }

  private static boolean flag(Map<String, List<String>> query, String name) {
    List<String> v = query.get(name);
    if (v == null || v.isEmpty()) {
      return false;
    }
    String s = v.getFirst().toLowerCase(Locale.ROOT);
    return s.equals("1") || s.equals("true");
  }

  private Optional<Caller> authenticate(Optional<X509Certificate> peer, String authorization) {
    if (config.anonymousAuth()) {
      return Optional.of(new Caller("system:anonymous", List.of("system:unauthenticated")));
    }
    if (peer.isPresent()) {
      return Optional.of(fromCertificate(peer.get()));
    }
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String token = authorization.substring(7).strip();
      CachedCaller cached = tokenCache.get(token);
      if (cached != null) {
        if (System.nanoTime() - cached.until() < 0) {
          return Optional.of(cached.caller());
        }
        tokenCache.remove(token, cached);
      }
      try {
        V1TokenReview review =
            new AuthenticationV1Api(client)
                .createTokenReview(new V1TokenReview().spec(new V1TokenReviewSpec().token(token)))
                .execute();
        V1TokenReviewStatus s = review.getStatus();
        if (s != null && Boolean.TRUE.equals(s.getAuthenticated()) && s.getUser() != null) {
          Caller c =
              new Caller(
                  s.getUser().getUsername(),
                  s.getUser().getGroups() == null ? List.of() : s.getUser().getGroups());
          if (tokenCache.size() > 1000) {
            tokenCache.clear();
          }
          tokenCache.put(token, new CachedCaller(c, System.nanoTime() + TOKEN_TTL));
          return Optional.of(c);
        }
      } catch (ApiException e) {
        LOG.warning("TokenReview failed: " + e.getCode());
      }
    }
    return Optional.empty();
  }

  static Caller fromCertificate(X509Certificate cert) {
    String dn = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
    String user = "";
    List<String> groups = new ArrayList<>();
    for (String rdn : dn.split("(?<!\\\\),")) {
      int eq = rdn.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String type = rdn.substring(0, eq).strip();
      String value = rdn.substring(eq + 1).strip().replace("\\,", ",");
      if (type.equalsIgnoreCase("CN")) {
        user = value;
      } else if (type.equalsIgnoreCase("O")) {
        groups.add(value);
      }
    }
    return new Caller(user, groups);
  }

  private static String verb(String method) {
    return switch (method) {
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> "get";
    };
  }

  private boolean authorized(Caller caller, String method, String subresource) {
    if (config.anonymousAuth() || caller.groups().contains("system:masters")) {
      return true;
    }
    try {
      V1SubjectAccessReview review =
          new AuthorizationV1Api(client)
              .createSubjectAccessReview(
                  new V1SubjectAccessReview()
                      .metadata(new V1ObjectMeta())
                      .spec(
                          new V1SubjectAccessReviewSpec()
                              .user(caller.user())
                              .groups(caller.groups())
                              .resourceAttributes(
                                  new V1ResourceAttributes()
                                      .verb(verb(method))
                                      .resource("nodes")
                                      .subresource(subresource)
                                      .name(config.nodeName()))))
              .execute();
      return review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
    } catch (ApiException e) {
      LOG.warning("SubjectAccessReview failed: " + e.getCode());
      return false;
    }
  }

  private static void send(
      ChannelHandlerContext ctx, HttpResponseStatus status, String type, String body) {
    send(ctx, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(
      ChannelHandlerContext ctx, HttpResponseStatus status, String type, byte[] bytes) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    HttpUtil.setContentLength(r, bytes.length);
    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  @Override
  public void close() {
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
    blocking.shutdownNow();
  }
}
