package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FilterFile}: one call reads any filter file and says what it holds. */
class FilterFileTest {
  @TempDir Path dir;

  @Test
  void read_singleFilterFile_reportsSingleSchemeAndHasher() throws IOException {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).scheme(Scheme.STANDARD).expectedItems(100).build();
    filter.add("a");
    Path path = dir.resolve("single.cuckoo");
    filter.writeTo(path);
    int[] asked = {-1};
    FilterFile<CharSequence> file =
        FilterFile.read(
            path,
            id -> {
              asked[0] = id;
              return ItemHashers.utf8();
            });
    assertFalse(file.isChain());
    assertEquals(Scheme.STANDARD, file.scheme());
    assertEquals(ItemHashers.utf8().id(), file.hasherId());
    assertEquals(file.hasherId(), asked[0]);
    assertTrue(file.single().mightContain("a"));
    assertThrows(IllegalStateException.class, file::chain);
  }

  @Test
  void read_chainFile_reportsChain() throws IOException {
    ScalableCuckooFilter<CharSequence> chain =
        ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    for (int i = 0; i < 100; i++) {
      chain.add("k" + i);
    }
    Path path = dir.resolve("chain.cuckoo");
    try (OutputStream out = Files.newOutputStream(path)) {
      chain.writeTo(out);
    }
    FilterFile<CharSequence> file = FilterFile.read(path, id -> ItemHashers.utf8());
    assertTrue(file.isChain());
    assertEquals(Scheme.STANDARD, file.scheme());
    assertEquals(ItemHashers.utf8().id(), file.hasherId());
    assertEquals(chain.linkCount(), file.chain().linkCount());
    assertThrows(IllegalStateException.class, file::single);
  }

  @Test
  void read_chainFileWithTrailingBytes_throwsNamingEnd() throws IOException {
    ScalableCuckooFilter<CharSequence> chain =
        ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    Path path = dir.resolve("trailing.cuckoo");
    try (OutputStream out = Files.newOutputStream(path)) {
      chain.writeTo(out);
    }
    long length = Files.size(path);
    Files.write(path, new byte[3], StandardOpenOption.APPEND);
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class, () -> FilterFile.read(path, id -> ItemHashers.utf8()));
    assertEquals("end", e.field());
    assertEquals(length, e.offset());
  }

  @Test
  void read_notAFilterFile_throwsNamingMagic() throws IOException {
    Path text = dir.resolve("text.txt");
    Files.writeString(text, "just some text, long enough to have a header");
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class, () -> FilterFile.read(text, id -> ItemHashers.utf8()));
    assertEquals("magic", e.field());
    Path tiny = dir.resolve("tiny");
    Files.write(tiny, new byte[5]);
    e =
        assertThrows(
            FilterFormatException.class, () -> FilterFile.read(tiny, id -> ItemHashers.utf8()));
    assertTrue(e.getMessage().contains("only 5 bytes"), e.getMessage());
  }
}
