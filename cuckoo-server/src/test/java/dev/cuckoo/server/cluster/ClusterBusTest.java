package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bus port over raw sockets: a MEET is answered with a PONG, a bad message closes the link. */
class ClusterBusTest {
  private static final String STRANGER = "f".repeat(40);

  @TempDir Path dir;

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private Cluster start() throws IOException {
    return Cluster.start(
        new Cluster.Options("127.0.0.1", 30001, freePort(), 1000, dir.resolve("nodes.conf")),
        SlotKeys.NONE);
  }

  private static byte[] readMessage(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    byte[] first = new byte[8];
    data.readFully(first);
    int length = MessageCodec.frameLength(first);
    byte[] all = new byte[length];
    System.arraycopy(first, 0, all, 0, 8);
    data.readFully(all, 8, length - 8);
    return all;
  }

  @Test
  void meet_fromUnknownNode_answeredWithPongAndAddedInHandshake() throws Exception {
    try (Cluster cluster = start();
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), busPort(cluster))) {
      socket.setSoTimeout(5000);
      ClusterMessage meet = new ClusterMessage(ClusterMessage.MEET);
      meet.sender = STRANGER;
      meet.port = 30009;
      meet.cport = 40009;
      meet.flags = ClusterNode.MASTER | ClusterNode.MYSELF;
      socket.getOutputStream().write(MessageCodec.encode(meet));
      ClusterMessage pong = MessageCodec.decode(readMessage(socket.getInputStream()));
      assertEquals(ClusterMessage.PONG, pong.type);
      assertEquals(cluster.state().myId(), pong.sender);
      assertEquals(30001, pong.port);
      assertEquals(busPort(cluster), pong.cport);
      assertEquals(ClusterNode.MASTER | ClusterNode.MYSELF, pong.flags);
      // the node is added in handshake, under a placeholder id, at the address it announced
      String nodes = cluster.state().nodesDescription(0);
      assertTrue(nodes.contains(" 127.0.0.1:30009@40009 handshake - "), nodes);
      assertTrue(nodes.contains(" myself,master - 0 0 0 connected\n"), nodes);
      assertTrue(cluster.state().info().contains("cluster_stats_messages_meet_received:1\r\n"));
    }
  }

  @Test
  void badMessages_closeTheLink_busKeepsServing() throws Exception {
    try (Cluster cluster = start()) {
      byte[] wrongSignature = "XXXX\0\0\u0008\u00d0".getBytes("ISO-8859-1");
      byte[] badVersion = handshakePing();
      badVersion[9] = 9;
      byte[] lengthLies = handshakePing();
      ByteBuffer.wrap(lengthLies).putInt(4, lengthLies.length + 104);
      byte[] tooLong = handshakePing();
      ByteBuffer.wrap(tooLong).putInt(4, Integer.MAX_VALUE);
      for (byte[] bad : new byte[][] {wrongSignature, badVersion, tooLong}) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), busPort(cluster))) {
          socket.setSoTimeout(5000);
          socket.getOutputStream().write(bad);
          assertEquals(-1, socket.getInputStream().read(), "the link is closed");
        }
      }
      // a length that promises more than comes: nothing is answered until the rest arrives
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), busPort(cluster))) {
        socket.setSoTimeout(300);
        socket.getOutputStream().write(lengthLies);
        assertThrows(java.net.SocketTimeoutException.class, () -> socket.getInputStream().read());
      }
      // and a good PING is still answered
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), busPort(cluster))) {
        socket.setSoTimeout(5000);
        socket.getOutputStream().write(handshakePing());
        assertEquals(
            ClusterMessage.PONG, MessageCodec.decode(readMessage(socket.getInputStream())).type);
      }
      assertTrue(cluster.state().nodes().size() == 1, "no node was added by bad or plain PINGs");
    }
  }

  private static <T extends Throwable> void assertThrows(
      Class<T> type, org.junit.jupiter.api.function.Executable run) {
    org.junit.jupiter.api.Assertions.assertThrows(type, run);
  }

  private static byte[] handshakePing() {
    ClusterMessage ping = new ClusterMessage(ClusterMessage.PING);
    ping.sender = STRANGER;
    ping.port = 30009;
    ping.cport = 40009;
    return MessageCodec.encode(ping);
  }

  private static int busPort(Cluster cluster) {
    return cluster.state().myself().cport();
  }
}
