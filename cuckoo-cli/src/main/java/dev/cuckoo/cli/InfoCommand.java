package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cuckoo info}: prints a filter file's parameters and state. */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description =
        "Print a filter file's parameters and state: scheme, fingerprint bits, bucket size,"
            + " capacity, items, load, bits/item, expected false-positive rate, size.",
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo info urls.cuckoo",
      "  cuckoo info urls.cuckoo --json | jq .load",
      "",
      "Exit codes: 0 success, 2 usage or input error (missing or corrupt file)."
    })
final class InfoCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Parameters(paramLabel = "FILE", description = "The filter file.")
  private Path file;

  @Option(names = "--json", description = "Print one JSON object instead of a table.")
  private boolean json;

  @Override
  public Integer call() throws Exception {
    FilterFile<byte[]> filterFile = FilterFiles.readFile(file);
    List<Property> properties = new ArrayList<>();
    properties.add(Property.of("file", "file", file.toString()));
    long fileBytes = Files.size(file);
    properties.add(new Property("fileBytes", "file size", fileBytes, Text.bytes(fileBytes)));
    properties.addAll(FilterSummary.describe(filterFile.filter(), filterFile.isChain()));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.object(properties));
    } else {
      int width = 0;
      for (Property property : properties) {
        width = Math.max(width, property.label.length());
      }
      for (Property property : properties) {
        out.printf("%-" + (width + 1) + "s %s%n", property.label + ":", property.text);
      }
    }
    out.flush();
    return ExitCode.OK;
  }
}
