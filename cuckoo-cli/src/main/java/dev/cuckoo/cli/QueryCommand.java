package dev.cuckoo.cli;

import dev.cuckoo.MembershipFilter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code cuckoo query}: asks a filter file about items. */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description = {
      "Ask a filter whether items might be present. Prints 'maybe<TAB>item' or 'no<TAB>item' per"
          + " item, or with --hits only the items that might be present.",
      "'no' is certain; 'maybe' is wrong at about the filter's false-positive rate."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo query --filter urls.cuckoo https://example.com/ https://example.org/",
      "  cuckoo query --filter urls.cuckoo --input candidates.txt --hits > seen.txt",
      "  cat ids.txt | cuckoo query --filter ids.cuckoo --input -",
      "  cuckoo query --filter keys.cuckoo --format hex 00ff10ab",
      "",
      "Exit codes: 0 every item might be present, 1 at least one is definitely absent,",
      "2 usage or input error."
    })
final class QueryCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;
  @ParentCommand private CuckooCli cli;

  @Option(
      names = "--filter",
      required = true,
      paramLabel = "FILE",
      description = "The filter file to query.")
  private Path filterFile;

  @Parameters(paramLabel = "ITEM", arity = "0..*", description = "Items to look up.")
  private List<String> items = new ArrayList<>();

  @Option(
      names = "--input",
      paramLabel = "FILE|-",
      description = "Also look up the items of a file, one per line; '-' reads standard input.")
  private String input;

  @Option(
      names = "--hits",
      description = "Print only the items that might be present, one per line.")
  private boolean hitsOnly;

  @Option(
      names = "--format",
      defaultValue = "lines",
      paramLabel = "FORMAT",
      description = "How an item is written: lines, hex or base64 (default ${DEFAULT-VALUE}).")
  private ItemFormat format;

  @Override
  public Integer call() {
    if (items.isEmpty() && input == null) {
      throw new ParameterException(
          spec.commandLine(), "no items to look up: give ITEMs or --input FILE|-");
    }
    List<byte[]> arguments = new ArrayList<>();
    for (String item : items) {
      arguments.add(format.decodeArgument(item));
    }
    MembershipFilter<byte[]> filter = FilterFiles.read(filterFile);
    PrintWriter out = spec.commandLine().getOut();
    boolean allMaybe = true;
    // open the input before printing anything, so a missing file fails cleanly
    try (ItemInput lines = input == null ? null : ItemInput.open(input, cli.stdin(), format)) {
      for (int i = 0; i < arguments.size(); i++) {
        allMaybe &= report(out, filter.mightContain(arguments.get(i)), items.get(i));
      }
      if (lines != null) {
        for (byte[] item = lines.next(); item != null; item = lines.next()) {
          String text = new String(lines.lastLine(), StandardCharsets.UTF_8);
          allMaybe &= report(out, filter.mightContain(item), text);
        }
      }
    }
    out.flush();
    return allMaybe ? ExitCode.OK : ExitCode.SOME_ABSENT;
  }

  private boolean report(PrintWriter out, boolean maybe, String item) {
    if (hitsOnly) {
      if (maybe) {
        out.println(item);
      }
    } else {
      out.print(maybe ? "maybe\t" : "no\t");
      out.println(item);
    }
    return maybe;
  }
}
