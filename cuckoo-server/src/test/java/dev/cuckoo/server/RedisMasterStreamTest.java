package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cuckoo-server replica of a Redis 8 + RedisBloom master, played by the test (no such master is
 * available here): Redis's handshake, the recorded Redis 8 {@code dump.rdb} as the transfer (on
 * disk and diskless), then CF.* commands as RedisBloom propagates them (verbatim) with foreign
 * writes among them, REPLCONF GETACK answered with the offset, a dropped link continued with
 * +CONTINUE at the right offset. The replica must end up equal, key by key (CF.SCANDUMP chunks and
 * expiry), to a server where the commands that built the recorded dump and the stream's CF commands
 * ran.
 */
class RedisMasterStreamTest {
  private static final String REPLID = "0123456789abcdef0123456789abcdef01234567";
  private static final long START = 1000;

  /** A Redis master played by the test over one connection at a time. */
  static final class FakeMaster implements Closeable {
    final ServerSocket server;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    FakeMaster() throws IOException {
      server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      server.setSoTimeout(10_000);
    }

    /** Accepts the replica and answers its handshake; returns the PSYNC's arguments. */
    List<String> accept(List<List<String>> handshake) throws IOException {
      socket = server.accept();
      socket.setSoTimeout(10_000);
      in = new BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
      while (true) {
        List<String> command = read();
        handshake.add(command);
        String name = command.get(0).toUpperCase();
        if (name.equals("PSYNC")) {
          return command;
        }
        write((name.equals("PING") ? "+PONG" : "+OK") + "\r\n");
      }
    }

    List<String> read() throws IOException {
      String header = line();
      assertTrue(header.startsWith("*"), header);
      List<String> args = new ArrayList<>();
      for (int i = Integer.parseInt(header.substring(1)); i > 0; i--) {
        int length = Integer.parseInt(line().substring(1));
        args.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
        line();
      }
      return args;
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException("the replica closed the connection");
        }
        if (b != '\r') {
          line.append((char) b);
        }
      }
      return line.toString();
    }

    void write(String text) throws IOException {
      write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    void write(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    /** Reads the replica's commands until a REPLCONF ACK of {@code offset}. */
    void awaitAck(long offset) throws IOException {
      List<String> last = null;
      for (int i = 0; i < 50; i++) {
        last = read();
        if (last.size() >= 3
            && last.get(1).equalsIgnoreCase("ACK")
            && Long.parseLong(last.get(2)) == offset) {
          return;
        }
      }
      throw new AssertionError("no REPLCONF ACK " + offset + "; last " + last);
    }

    void drop() throws IOException {
      socket.close();
    }

    @Override
    public void close() throws IOException {
      if (socket != null) {
        socket.close();
      }
      server.close();
    }
  }

  private static byte[] commands(List<String[]> commands) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (String[] command : commands) {
      bytes.writeBytes(RespClient.encode((Object[]) command));
    }
    return bytes.toByteArray();
  }

  private static String[] c(String... args) {
    return args;
  }

  /** Runs the commands that built the recorded dump.rdb (its README) on {@code port}. */
  private static void buildRecordedKeys(RespClient client) throws IOException {
    client.call("CF.RESERVE", "small", "100");
    for (int i = 1; i <= 50; i++) {
      client.call("CF.ADD", "small", "item" + i);
    }
    client.call("CF.RESERVE", "grown", "100", "BUCKETSIZE", "2", "EXPANSION", "2");
    for (int i = 1; i <= 600; i++) {
      client.call("CF.ADD", "grown", "g" + i);
    }
    client.call("CF.DEL", "grown", "g7");
    client.call("CF.ADD", "withttl", "x");
    client.call("PEXPIREAT", "withttl", "4102444800000");
    client.call("SELECT", "1");
    client.call("CF.ADD", "indb1", "y");
    client.call("SELECT", "0");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void replicaOf_redisBloomMaster_recordedRdbThenCfStream(boolean diskless) throws Exception {
    byte[] rdb = dev.cuckoo.server.rdb.RecordedDumps.recordedRdb();
    List<String[]> first =
        List.of(
            c("SELECT", "0"),
            c("CF.ADD", "small", "item51"),
            c("CF.INSERT", "newcf", "CAPACITY", "1000", "ITEMS", "a", "b", "c"),
            c("CF.DEL", "grown", "g8"),
            c("MULTI"),
            c("CF.ADDNX", "small", "item52"),
            c("SET", "foreignkey", "1"),
            c("EXEC"),
            c("SET", "withttl", "overwritten"),
            c("SELECT", "1"),
            c("CF.RESERVE", "db1cf", "200"),
            c("PEXPIREAT", "indb1", "4102444800000"),
            c("LPUSH", "somelist", "a"),
            c("PING"));
    List<String[]> afterDrop = List.of(c("SELECT", "0"), c("CF.ADD", "small", "item53"));
    byte[] getAck = commands(List.<String[]>of(c("REPLCONF", "GETACK", "*")));
    try (FakeMaster master = new FakeMaster();
        CuckooServer replica = TestServers.start();
        RespClient client = new RespClient(replica.port());
        CuckooServer reference = TestServers.start();
        RespClient expected = new RespClient(reference.port())) {
      client.call("REPLICAOF", "127.0.0.1", master.server.getLocalPort());
      List<List<String>> handshake = new ArrayList<>();
      master.accept(handshake);
      assertEquals("PING", handshake.get(0).get(0));
      assertEquals(
          List.of("REPLCONF", "listening-port", Integer.toString(replica.port())),
          handshake.get(1));
      // capa lz4 (a compressed transfer from a cuckoo-server) means nothing to Redis, which ignores
      // capabilities it does not know
      assertEquals(
          List.of("REPLCONF", "capa", "eof", "capa", "psync2", "capa", "lz4"), handshake.get(2));
      master.write("+FULLRESYNC " + REPLID + " " + START + "\r\n");
      if (diskless) {
        String mark = "e".repeat(40);
        master.write("$EOF:" + mark + "\r\n");
        master.write(rdb);
        master.write(mark);
      } else {
        master.write("$" + rdb.length + "\r\n");
        master.write(rdb);
      }
      byte[] stream = commands(first);
      master.write(stream);
      master.write(getAck);
      long offset = START + stream.length;
      master.awaitAck(offset);
      offset += getAck.length;

      buildRecordedKeys(expected);
      expected.call("CF.ADD", "small", "item51");
      expected.call("CF.INSERT", "newcf", "CAPACITY", "1000", "ITEMS", "a", "b", "c");
      expected.call("CF.DEL", "grown", "g8");
      expected.call("CF.ADDNX", "small", "item52");
      expected.call("DEL", "withttl");
      expected.call("SELECT", "1");
      expected.call("CF.RESERVE", "db1cf", "200");
      expected.call("PEXPIREAT", "indb1", "4102444800000");
      assertEquals(ReplicaState.of(reference.port(), 2), ReplicaState.of(replica.port(), 2));
      assertEquals("1", ReplicaState.info(replica.port(), "master_foreign_keys"));
      assertEquals("string=1", ReplicaState.info(replica.port(), "master_foreign_keys_by_type"));
      assertEquals(
          "list=1,string=2", ReplicaState.info(replica.port(), "master_foreign_writes_by_type"));

      // the link drops; the replica asks to continue after what it applied
      master.drop();
      List<String> psync = master.accept(new ArrayList<>());
      assertEquals(List.of("PSYNC", REPLID, Long.toString(offset + 1)), psync);
      master.write("+CONTINUE\r\n");
      stream = commands(afterDrop);
      master.write(stream);
      master.write(getAck);
      master.awaitAck(offset + stream.length);
      expected.call("SELECT", "0");
      expected.call("CF.ADD", "small", "item53");
      assertEquals(ReplicaState.of(reference.port(), 2), ReplicaState.of(replica.port(), 2));
      Map<String, String> state = ReplicaState.of(replica.port(), 2);
      assertEquals(5, state.size(), state.keySet().toString());
    }
  }
}
