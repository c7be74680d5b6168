package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Assembling chain files from SCANDUMP streams, and the ways a stream can be unusable. */
class ChainImageTest {
  private static RedisCuckooFilter<byte[]> grownChain() {
    RedisCuckooFilter<byte[]> chain = RedisCuckooFilter.reserve(64, 2, 20, 1);
    for (int i = 0; i < 300; i++) {
      chain.tryAdd(("x" + i).getBytes(StandardCharsets.UTF_8));
    }
    return chain;
  }

  private static List<ScanDumpChunk> dump(RedisCuckooFilter<byte[]> chain) {
    List<ScanDumpChunk> chunks = new ArrayList<>();
    for (ScanDumpChunk c = chain.scanDump(0); c.iterator() != 0; c = chain.scanDump(c.iterator())) {
      chunks.add(c);
    }
    return chunks;
  }

  @Test
  void assembly_wholeDump_chainFileEqualsTheLibrarys() throws IOException {
    RedisCuckooFilter<byte[]> chain = grownChain();
    List<ScanDumpChunk> chunks = dump(chain);
    DumpAssembly assembly = DumpAssembly.fromHeader(chunks.get(0).data(), "k");
    assertEquals(chain.linkCount(), assembly.links());
    assertTrue(assembly.links() > 1, "links " + assembly.links());
    for (ScanDumpChunk chunk : chunks.subList(1, chunks.size())) {
      assembly.load(chunk.iterator(), chunk.data(), "k");
    }
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    chain.writeTo(expected);
    assertArrayEquals(expected.toByteArray(), assembly.finish("k"));
  }

  @Test
  void assembly_missingOrMisplacedChunksOrBadHeader_cliException() {
    List<ScanDumpChunk> chunks = dump(grownChain());
    DumpAssembly missing = DumpAssembly.fromHeader(chunks.get(0).data(), "k");
    // the first link alone: 32 buckets of 2 one-byte slots
    missing.load(chunks.get(1).iterator(), chunks.get(1).data(), "k");
    CliException short1 = assertThrows(CliException.class, () -> missing.finish("k"));
    assertTrue(
        short1.getMessage().startsWith("key 'k': the dump holds 64 of "), short1.getMessage());

    DumpAssembly misplaced = DumpAssembly.fromHeader(chunks.get(0).data(), "k");
    CliException outside =
        assertThrows(CliException.class, () -> misplaced.load(1L << 40, new byte[8], "k"));
    assertTrue(
        outside.getMessage().startsWith("key 'k': a chunk of 8 bytes: "), outside.getMessage());

    byte[] header = chunks.get(0).data().clone();
    header[36] = 0; // expansion 0 with several sub-filters: CF.LOADCHUNK refuses it
    header[37] = 0;
    CliException bad = assertThrows(CliException.class, () -> DumpAssembly.fromHeader(header, "k"));
    assertTrue(bad.getMessage().contains("key 'k': invalid dump header: "), bad.getMessage());
    assertTrue(bad.getMessage().contains("numFilters"), bad.getMessage());
  }
}
