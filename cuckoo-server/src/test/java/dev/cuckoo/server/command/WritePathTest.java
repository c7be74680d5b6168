package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.cluster.ClusterState;
import dev.cuckoo.server.cluster.SlotKeys;
import dev.cuckoo.server.cluster.SlotTable;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.replication.StreamPosition;
import dev.cuckoo.server.replication.WriteStream;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher owns a write: the write path decides the refusal before the handler runs, and
 * records what the handler changed after it returned, with each class on the call stack once.
 */
class WritePathTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/cuckoo/server/command");

  private final Keyspace keyspace = new Keyspace();
  private final ServerContext context =
      new ServerContext(TestServers.memoryOnly().build().parameters(), keyspace);
  private final Commands commands = new Commands(context);
  private final Session session =
      new Session(1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
  private final RecordingStream stream = new RecordingStream();

  /** A replication stream that keeps every record and the call stack it was recorded from. */
  private static final class RecordingStream implements WriteStream {
    final List<byte[][]> records = new ArrayList<>();
    final List<List<String>> stacks = new ArrayList<>();
    final List<byte[][]> messages = new ArrayList<>();
    final List<List<String>> messageStacks = new ArrayList<>();

    @Override
    public void record(int db, byte[][] args, StreamPosition position) {
      records.add(args);
      stacks.add(stackHere());
      position.set(0, null);
    }

    @Override
    public void propagate(byte[][] args) {
      messages.add(args);
      messageStacks.add(stackHere());
    }

    /** Returns the server's own frames of the caller's stack (not this test's, nor JUnit's). */
    private static List<String> stackHere() {
      return StackWalker.getInstance()
          .walk(
              frames ->
                  frames
                      .map(StackWalker.StackFrame::getClassName)
                      .filter(name -> name.startsWith("dev.cuckoo.server."))
                      .filter(name -> !name.startsWith(WritePathTest.class.getName()))
                      .map(WritePathTest::outerSimpleName)
                      .collect(java.util.stream.Collectors.toList()));
    }
  }

  private static String outerSimpleName(String className) {
    String outer = className.replaceAll("\\$.*", "");
    return outer.substring(outer.lastIndexOf('.') + 1);
  }

  private String run(String... args) {
    byte[][] line = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      line[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    commands.execute(session, line);
    ByteBuf out = session.reply().take();
    try {
      return out == null ? "" : out.toString(StandardCharsets.UTF_8);
    } finally {
      if (out != null) {
        out.release();
      }
    }
  }

  /** Returns the files of a call stack, one per run of consecutive frames of the same file. */
  private static List<String> files(List<String> stack) {
    List<String> files = new ArrayList<>();
    for (String name : stack) {
      if (files.isEmpty() || !files.get(files.size() - 1).equals(name)) {
        files.add(name);
      }
    }
    return files;
  }

  @Test
  void cfAdd_recordedAfterTheHandlerReturned_eachFileOnTheStackOnce() {
    context.writeStream(stream);
    assertEquals(":1\r\n", run("CF.ADD", "k", "a"));
    assertEquals(":1\r\n", run("CF.ADD", "k", "b"));
    assertEquals(2, stream.records.size());
    List<String> files = files(stream.stacks.get(1));
    assertFalse(files.contains("CfFamily"), "recorded from inside the handler: " + files);
    for (String file : files) {
      assertEquals(1, java.util.Collections.frequency(files, file), file + " twice: " + files);
    }
    assertEquals(
        List.of("WritePath", "Commands"), files, "the write path called by the dispatcher");
    assertEquals("CF.ADD k b", text(stream.records.get(1)));
  }

  @Test
  void memoryCount_afterWritesThatGrowMoveAndDropFilters_equalsARecount() {
    assertEquals("+OK\r\n", run("CF.RESERVE", "grown", "4", "BUCKETSIZE", "2", "EXPANSION", "1"));
    for (int i = 0; i < 64; i++) {
      run("CF.ADD", "grown", "item" + i);
    }
    // a command EXEC runs changes its filter in place too
    run("CF.RESERVE", "queued", "4", "BUCKETSIZE", "2", "EXPANSION", "1");
    run("MULTI");
    for (int i = 0; i < 16; i++) {
      run("CF.ADDNX", "queued", "item" + i);
    }
    run("EXEC");
    // a filter created by the command that grows it
    run("CF.INSERT", "inserted", "CAPACITY", "4", "ITEMS", "a", "b", "c", "d", "e", "f", "g");
    assertTrue(keyspace.get(key("inserted")).linkCount() > 1, "grew as it was created");
    assertEquals(":1\r\n", run("CF.DEL", "grown", "item0"));
    run("CF.ADD", "gone", "x");
    assertEquals(":1\r\n", run("DEL", "gone"));
    byte[] payload = dump("grown");
    assertEquals("+OK\r\n", restore("copy", payload));
    assertEquals(":1\r\n", run("PEXPIRE", "copy", "100000"));
    RedisCuckooFilter<byte[]> grown = keyspace.get(key("grown"));
    assertTrue(grown.linkCount() > 2, "the filter grew in place: " + grown.linkCount());
    assertTrue(keyspace.get(key("queued")).linkCount() > 1, "grew inside EXEC");

    long counted = keyspace.usedBytes();
    long recounted = 0;
    for (Key key : keyspace.keys()) {
      recounted += keyspace.usageBytes(key);
    }
    assertEquals(recounted, counted, "counted as keys changed vs. summed over the keys now");
    keyspace.recountUsed();
    assertEquals(counted, keyspace.usedBytes(), "the keyspace's own recount");
  }

  private static ClusterState nodeServingNoSlot() {
    return new ClusterState(
        new ClusterState.Settings(7000, 17000, 1000, true),
        node -> {
          throw new AssertionError("no link is opened");
        },
        SlotKeys.NONE,
        System::currentTimeMillis,
        (content, fsync) -> {});
  }

  private static Key key(String name) {
    return new Key(0, name.getBytes(StandardCharsets.UTF_8));
  }

  /** Returns DUMP's payload of the key. */
  private byte[] dump(String name) {
    commands.execute(session, new byte[][] {bytes("DUMP"), bytes(name)});
    ByteBuf out = session.reply().take();
    try {
      byte[] reply = new byte[out.readableBytes()];
      out.readBytes(reply);
      int start = 0;
      while (reply[start] != '\n') {
        start++;
      }
      // $<length>\r\n<payload>\r\n
      return java.util.Arrays.copyOfRange(reply, start + 1, reply.length - 2);
    } finally {
      out.release();
    }
  }

  private String restore(String name, byte[] payload) {
    commands.execute(session, new byte[][] {bytes("RESTORE"), bytes(name), bytes("0"), payload});
    ByteBuf out = session.reply().take();
    try {
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void run_slotTableChangedSinceTheDispatchersCheck_refusedBySlotTyped() {
    run("MULTI");
    assertEquals("+QUEUED\r\n", run("CF.ADD", "k", "a"));
    // a cluster node that serves no slot, whose table is not the one the requests were checked
    // with (the table of another node, as if the table had changed since)
    SlotTable checked = nodeServingNoSlot().slotTable();
    context.cluster(nodeServingNoSlot());
    WritePath writes = commands.writePath();
    Request add =
        new Request(
            commands.find("cf.add"), 0, new byte[][] {bytes("CF.ADD"), bytes("k"), bytes("b")});
    add.slotsChecked(checked);
    Session alone =
        new Session(
            2, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
    assertEquals(
        new WritePath.Refusal(SlotCheck.UNBOUND, true), writes.run(alone, add), "a plain write");
    Request exec = new Request(commands.find("exec"), 0, new byte[][] {bytes("EXEC")});
    exec.slotsChecked(checked);
    assertEquals(
        new WritePath.Refusal(SlotCheck.UNBOUND, true), writes.run(session, exec), "a transaction");
    assertNull(keyspace.get(key("k")), "nothing ran");
  }

  @Test
  void cfAdd_createsTheKey_reserveAndAddRecordedAsOneUnit() {
    context.writeStream(stream);
    assertEquals(":1\r\n", run("CF.ADD", "new", "a"));
    assertEquals(1, stream.records.size());
    assertTrue(Transaction.isRecord(stream.records.get(0)));
    List<Transaction.Write> writes = Transaction.decode(stream.records.get(0));
    assertEquals(2, writes.size());
    assertTrue(text(writes.get(0).args).startsWith("CF.RESERVE new "), text(writes.get(0).args));
    assertEquals("CF.ADD new a", text(writes.get(1).args));
  }

  @Test
  void refusedWrite_handlerNeverRuns_nothingRecorded() {
    context.writeStream(stream);
    // replication pushes the role: a read-only replica whose link is up
    context.writeRefusals().role(true, true);
    assertEquals(
        "-READONLY You can't write against a read only replica.\r\n", run("CF.ADD", "k", "a"));
    assertNull(keyspace.get(new Key(0, "k".getBytes(StandardCharsets.UTF_8))));
    assertEquals(List.of(), stream.records);
    assertEquals(1, commands.find("cf.add").stats().rejectedCalls(), "counted as rejected");
  }

  @Test
  void publish_sentToReplicasByTheDispatcher_notByItsHandler() {
    context.writeStream(stream);
    assertEquals(":0\r\n", run("PUBLISH", "news", "hello"));
    assertEquals(1, stream.messages.size());
    assertEquals("PUBLISH news hello", text(stream.messages.get(0)));
    assertEquals(List.of("WritePath", "Commands"), files(stream.messageStacks.get(0)));
    assertEquals(List.of(), stream.records, "a message is not a record of the log");
  }

  @Test
  void exec_writesOfTheTransaction_oneRecord() {
    context.writeStream(stream);
    run("MULTI");
    run("CF.ADD", "a", "x");
    run("DEL", "nothing");
    run("CF.ADD", "b", "y");
    assertEquals("*3\r\n:1\r\n:0\r\n:1\r\n", run("EXEC"));
    assertEquals(1, stream.records.size());
    List<Transaction.Write> writes = Transaction.decode(stream.records.get(0));
    // each creation is CF.RESERVE then CF.ADD; the DEL of nothing changed nothing
    assertEquals(4, writes.size());
    assertEquals("CF.ADD a x", text(writes.get(1).args));
    assertEquals("CF.ADD b y", text(writes.get(3).args));
    assertNotNull(keyspace.get(new Key(0, "b".getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void handlers_neverLockRefuseOrRecord() throws IOException {
    Pattern forbidden =
        Pattern.compile(
            "lockFor\\(|readLockFor\\(|lockKeys\\(|readLockKeys\\(|lockAll\\(|unlockAll\\("
                + "|beginWrite\\(|putOpened\\("
                + "|refuses\\(|writes\\.refusal\\(|\\.record\\(|recordAll\\(|moveGate\\(\\)"
                + "|propagate\\(");
    List<String> found = new ArrayList<>();
    int handlers = 0;
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        boolean handler =
            name.endsWith("Commands.java") && !name.equals("Commands.java")
                || name.endsWith("Family.java");
        if (!handler) {
          continue;
        }
        handlers++;
        Matcher matcher = forbidden.matcher(Files.readString(file));
        while (matcher.find()) {
          found.add(name + ": " + matcher.group());
        }
      }
    }
    assertTrue(handlers > 25, "found the handlers and families: " + handlers);
    assertEquals(List.of(), found);
  }

  private static String text(byte[][] args) {
    StringBuilder text = new StringBuilder();
    for (byte[] arg : args) {
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(new String(arg, StandardCharsets.UTF_8));
    }
    return text.toString();
  }
}
