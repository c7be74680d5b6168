package dev.cuckoo.server.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.LeakCheck;
import dev.cuckoo.server.RespClient;
import dev.cuckoo.server.ServerConfig;
import dev.cuckoo.server.TestServers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Protected mode: the decision, the handler on fake remote addresses, and a server bound to all
 * interfaces reached over a non-loopback address of this machine.
 */
@ExtendWith(LeakCheck.class)
class ProtectedModeTest {
  /** An embedded channel whose peer is the given address. */
  private static final class RemoteChannel extends EmbeddedChannel {
    private final SocketAddress remote;

    RemoteChannel(SocketAddress remote, ChannelHandler... handlers) throws Exception {
      super(false, false, handlers);
      this.remote = remote;
      register();
    }

    @Override
    protected SocketAddress remoteAddress0() {
      return remote;
    }
  }

  /** Records what reaches the handlers behind ProtectedMode. */
  private static final class Recorder extends ChannelInboundHandlerAdapter {
    final List<String> events = new ArrayList<>();

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      events.add("active");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      events.add("read");
      ((ByteBuf) msg).release();
    }
  }

  private static InetSocketAddress address(String ip) throws IOException {
    return new InetSocketAddress(InetAddress.getByName(ip), 50_000);
  }

  @Test
  void allows_loopbackAddresses_true() throws IOException {
    for (String ip : new String[] {"127.0.0.1", "127.1.2.3", "::1"}) {
      assertTrue(ProtectedMode.allows(address(ip)), ip);
    }
  }

  @Test
  void allows_otherAddresses_false() throws IOException {
    for (String ip :
        new String[] {
          "192.0.2.2", "10.0.0.1", "0.0.0.0", "fd00::2", "fe80::1", "::ffff:10.0.0.1", "::"
        }) {
      assertFalse(ProtectedMode.allows(address(ip)), ip);
    }
    assertFalse(ProtectedMode.allows(InetSocketAddress.createUnresolved("localhost", 1)));
    assertFalse(ProtectedMode.allows(new io.netty.channel.local.LocalAddress("x")));
    assertFalse(ProtectedMode.allows(null));
  }

  @Test
  void appliesTo_wildcardBindWithoutPassword_true() throws IOException {
    ServerConfig config = ServerConfig.builder().build();
    assertTrue(ProtectedMode.appliesTo(config.parameters(), InetAddress.getByName("0.0.0.0")));
    assertTrue(ProtectedMode.appliesTo(config.parameters(), InetAddress.getByName("::")));
  }

  @Test
  void appliesTo_passwordOrOff_false() throws IOException {
    InetAddress any = InetAddress.getByName("0.0.0.0");
    ServerConfig defaults = ServerConfig.builder().build();
    // Redis 7 and later: whatever the bind address (redis-server 7.0.15 bound to one interface
    // answers -DENIED too)
    assertTrue(ProtectedMode.appliesTo(defaults.parameters(), InetAddress.getByName("192.0.2.2")));
    assertFalse(
        ProtectedMode.appliesTo(
            ServerConfig.builder().requirePass("pw").build().parameters(), any));
    assertFalse(
        ProtectedMode.appliesTo(
            ServerConfig.builder().protectedMode(false).build().parameters(), any));
  }

  @Test
  void channelActive_remoteNotLoopback_deniedAndClosedBeforeLaterHandlers() throws Exception {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        new RemoteChannel(address("203.0.113.9"), new ProtectedMode(), recorder);
    ByteBuf reply = channel.readOutbound();
    try {
      assertEquals(ProtectedMode.DENIED, reply.toString(StandardCharsets.US_ASCII));
    } finally {
      reply.release();
    }
    assertFalse(channel.isOpen());
    assertEquals(List.of(), recorder.events);
    assertFalse(channel.finish());
  }

  @Test
  void channelRead_refusedConnection_droppedAndReleased() throws Exception {
    Recorder recorder = new Recorder();
    ProtectedMode guard = new ProtectedMode();
    EmbeddedChannel channel = new RemoteChannel(address("10.1.2.3"), guard, recorder);
    ((ByteBuf) channel.readOutbound()).release();
    assertFalse(channel.isOpen());
    // bytes of a read already under way when the refusal closed the channel (the pipeline is torn
    // down by now, hence no context: the refused path does not use it)
    ByteBuf late = Unpooled.copiedBuffer("PING\r\n", StandardCharsets.US_ASCII);
    guard.channelRead(null, late);
    assertEquals(0, late.refCnt());
    assertEquals(List.of(), recorder.events);
  }

  @Test
  void channelActive_loopbackRemote_handlerRemovedAndConnectionPassedOn() throws Exception {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        new RemoteChannel(address("127.0.0.1"), new ProtectedMode(), recorder);
    assertNull(channel.pipeline().get(ProtectedMode.class));
    assertNull(channel.readOutbound());
    channel.writeInbound(Unpooled.copiedBuffer("PING\r\n", StandardCharsets.US_ASCII));
    assertEquals(List.of("active", "read"), recorder.events);
    assertTrue(channel.isOpen());
    assertFalse(channel.finish());
  }

  @Test
  void parse_protectedModeOption_setsFlag(@TempDir Path dir) throws IOException {
    assertTrue(ServerConfig.parse().protectedMode());
    assertFalse(ServerConfig.parse("--protected-mode", "no").protectedMode());
    Path file = dir.resolve("cuckoo.conf");
    Files.writeString(file, "protected-mode no\n");
    assertFalse(ServerConfig.parse("--config", file.toString()).protectedMode());
    assertTrue(ServerConfig.USAGE.contains("--protected-mode yes|no"));
  }

  /** Returns an IPv4 address of an interface of this machine that is up and not loopback. */
  private static InetAddress nonLoopbackLocalAddress() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
          return address;
        }
      }
    }
    return null;
  }

  /** Connects from this machine to one of its own addresses, sends a request, reads to EOF. */
  private static String exchange(InetAddress address, int port, String request) throws IOException {
    try (Socket socket = new Socket(address, port)) {
      socket.setSoTimeout(10_000);
      if (!request.isEmpty()) {
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        socket.shutdownOutput();
      }
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  @Test
  void connect_nonLoopbackClientToWildcardBindWithoutPassword_deniedAndClosed() throws IOException {
    InetAddress local = nonLoopbackLocalAddress();
    assumeTrue(local != null, "skipped: this machine has no non-loopback IPv4 address");
    ServerConfig config = TestServers.memoryOnly().bind("0.0.0.0").build();
    try (CuckooServer server = CuckooServer.start(config)) {
      assertEquals(ProtectedMode.DENIED, exchange(local, server.port(), ""));
      assertEquals(
          "+PONG\r\n", exchange(InetAddress.getLoopbackAddress(), server.port(), "PING\r\n"));
    }
  }

  @Test
  void connect_nonLoopbackClientWithProtectedModeOffOrPassword_served() throws IOException {
    InetAddress local = nonLoopbackLocalAddress();
    assumeTrue(local != null, "skipped: this machine has no non-loopback IPv4 address");
    ServerConfig off = TestServers.memoryOnly().bind("0.0.0.0").protectedMode(false).build();
    try (CuckooServer server = CuckooServer.start(off)) {
      assertEquals("+PONG\r\n", exchange(local, server.port(), "PING\r\n"));
    }
    ServerConfig password = TestServers.memoryOnly().bind("0.0.0.0").requirePass("pw").build();
    try (CuckooServer server = CuckooServer.start(password)) {
      assertEquals("+OK\r\n+PONG\r\n", exchange(local, server.port(), "AUTH pw\r\nPING\r\n"));
    }
  }

  @Test
  void configGet_protectedMode_reportsSetting() throws IOException {
    ServerConfig config = TestServers.memoryOnly().protectedMode(false).build();
    try (CuckooServer server = CuckooServer.start(config);
        RespClient client = new RespClient(server.port())) {
      List<?> reply = (List<?>) client.call("CONFIG", "GET", "protected-mode");
      assertEquals("protected-mode", RespClient.text(reply.get(0)));
      assertEquals("no", RespClient.text(reply.get(1)));
    }
    assertTrue(TestServers.memoryOnly().build().protectedMode());
  }

  @Test
  void configSet_protectedModeOrPassword_appliesToNewConnections() throws IOException {
    InetAddress local = nonLoopbackLocalAddress();
    assumeTrue(local != null, "skipped: this machine has no non-loopback IPv4 address");
    ServerConfig config = TestServers.memoryOnly().bind("0.0.0.0").build();
    try (CuckooServer server = CuckooServer.start(config);
        RespClient admin = new RespClient(server.port())) {
      assertEquals(ProtectedMode.DENIED, exchange(local, server.port(), ""));
      assertEquals(
          new RespClient.Simple("OK"), admin.call("CONFIG", "SET", "protected-mode", "no"));
      assertEquals("+PONG\r\n", exchange(local, server.port(), "PING\r\n"));
      assertEquals(
          new RespClient.Simple("OK"), admin.call("CONFIG", "SET", "protected-mode", "yes"));
      assertEquals(ProtectedMode.DENIED, exchange(local, server.port(), ""));
      assertEquals(new RespClient.Simple("OK"), admin.call("CONFIG", "SET", "requirepass", "pw"));
      assertEquals("+OK\r\n+PONG\r\n", exchange(local, server.port(), "AUTH pw\r\nPING\r\n"));
    }
  }
}
