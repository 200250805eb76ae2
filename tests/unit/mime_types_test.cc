#include "core/mime_types.h"

#include <gtest/gtest.h>

#include <string>

namespace paddock::mime_types_test {
namespace {

TEST(MimeTypes, ByExtension) {
  EXPECT_EQ(core::mime_type_for("plot.png"), "image/png");
  EXPECT_EQ(core::mime_type_for("PHOTO.JPG"), "image/jpeg");
  EXPECT_EQ(core::mime_type_for("main.py"), "text/x-python");
  EXPECT_EQ(core::mime_type_for("outputs/result.csv"), "text/csv");
  EXPECT_EQ(core::mime_type_for("table.tsv"), "text/tab-separated-values");
  EXPECT_EQ(core::mime_type_for("notes.txt"), "text/plain");
  EXPECT_EQ(core::mime_type_for("README.md"), "text/markdown");
  EXPECT_EQ(core::mime_type_for("data.json"), "application/json");
  EXPECT_EQ(core::mime_type_for("analysis.R"), "text/x-r");
  EXPECT_EQ(core::mime_type_for("analysis.r"), "text/x-r");
  EXPECT_EQ(core::mime_type_for("index.mjs"), "text/javascript");
  EXPECT_EQ(core::mime_type_for("main.ts"), "text/x-typescript");
  EXPECT_EQ(core::mime_type_for("Main.java"), "text/x-java");
  EXPECT_EQ(core::mime_type_for("main.c"), "text/x-c");
  EXPECT_EQ(core::mime_type_for("main.hpp"), "text/x-c++");
  EXPECT_EQ(core::mime_type_for("main.go"), "text/x-go");
  EXPECT_EQ(core::mime_type_for("run.sh"), "text/x-shellscript");
  EXPECT_EQ(core::mime_type_for("config.yml"), "application/yaml");
  EXPECT_EQ(core::mime_type_for("Cargo.toml"), "application/toml");
  EXPECT_EQ(core::mime_type_for("query.sql"), "application/sql");
  EXPECT_EQ(core::mime_type_for("report.pdf"), "application/pdf");
}

TEST(MimeTypes, UnknownExtensionsAreOctetStream) {
  for (const char* path : {"model.bin", "Makefile", "archive.", "", "x.py.bak"}) {
    EXPECT_EQ(core::mime_type_for(path), "application/octet-stream") << path;
  }
  // Only the last path element's extension counts.
  EXPECT_EQ(core::mime_type_for("run.v2/data"), "application/octet-stream");
  EXPECT_EQ(core::mime_type_for("out.csv/plot.png"), "image/png");
}

TEST(MimeTypes, ContentDecidesWhenTheExtensionIsUnknown) {
  EXPECT_EQ(core::mime_type_for("outputs/result.dat", "a b c\n1 2 3\n"), "text/plain");
  EXPECT_EQ(core::mime_type_for("Makefile", "all:\n\tcc main.c\n"), "text/plain");
  EXPECT_EQ(core::mime_type_for("empty", ""), "text/plain");
  EXPECT_EQ(core::mime_type_for("model.bin", std::string("\x00\x01\x02", 3)),
            "application/octet-stream");
  EXPECT_EQ(core::mime_type_for("latin1.dat", "caf\xe9"), "application/octet-stream");
  // A known extension wins over the content either way.
  EXPECT_EQ(core::mime_type_for("plot.png", "not really a png"), "image/png");
  EXPECT_EQ(core::mime_type_for("data.csv", std::string("\0", 1)), "text/csv");
}

TEST(MimeTypes, AFileCutShortMayEndInsideACharacter) {
  // "é" is two bytes; a file's first bytes may hold only the first of them.
  EXPECT_EQ(core::mime_type_for("log", "caf\xc3", true), "text/plain");
  EXPECT_EQ(core::mime_type_for("log", "caf\xc3", false), "application/octet-stream");
}

TEST(MimeTypes, TextTypes) {
  for (const char* type :
       {"text/plain", "text/csv", "text/x-python", "text/markdown", "text/html", "application/json",
        "application/xml", "application/x-yaml", "application/yaml", "application/toml",
        "application/sql", "application/javascript", "image/svg+xml", "application/geo+json",
        "application/x-ipynb+json", "TEXT/PLAIN", "text/plain; charset=utf-8",
        "application/json;charset=UTF-8"}) {
    EXPECT_TRUE(core::is_text_mime_type(type)) << type;
  }
  for (const char* type : {"application/octet-stream", "image/png", "application/pdf",
                           "application/zip", "application/gzip", "", "text", "json"}) {
    EXPECT_FALSE(core::is_text_mime_type(type)) << type;
  }
}

TEST(MimeTypes, EveryTextExtensionHasATextType) {
  for (const char* path :
       {"a.py",  "a.csv",  "a.tsv", "a.txt",   "a.md",    "a.json", "a.R",   "a.js",  "a.mjs",
        "a.ts",  "a.java", "a.c",   "a.h",     "a.cpp",   "a.hpp",  "a.cc",  "a.go",  "a.rb",
        "a.sh",  "a.yaml", "a.yml", "a.toml",  "a.xml",   "a.html", "a.css", "a.log", "a.sql",
        "a.ini", "a.cfg",  "a.svg", "a.jsonl", "a.ipynb", "a.rs",   "a.jl"}) {
    EXPECT_TRUE(core::is_text_mime_type(core::mime_type_for(path)))
        << path << ": " << core::mime_type_for(path);
  }
  for (const char* path : {"a.png", "a.pdf", "a.zip", "a.gz", "a.parquet", "a.bin"}) {
    EXPECT_FALSE(core::is_text_mime_type(core::mime_type_for(path))) << path;
  }
}

TEST(LooksLikeText, AsciiAndValidMultiByteUtf8AreText) {
  EXPECT_TRUE(core::looks_like_text(""));
  EXPECT_TRUE(core::looks_like_text("plain ASCII\n\ttext\r\n"));
  EXPECT_TRUE(core::looks_like_text("\xc3\xa9"));          // é, 2 bytes
  EXPECT_TRUE(core::looks_like_text("\xc2\x80"));          // U+0080, smallest 2-byte
  EXPECT_TRUE(core::looks_like_text("\xe2\x82\xac"));      // €, 3 bytes
  EXPECT_TRUE(core::looks_like_text("\xef\xbf\xbd"));      // U+FFFD
  EXPECT_TRUE(core::looks_like_text("\xf0\x9f\x98\x80"));  // 😀, 4 bytes
  EXPECT_TRUE(core::looks_like_text("\xf4\x8f\xbf\xbf"));  // U+10FFFF, the last code point
  EXPECT_TRUE(
      core::looks_like_text("na\xc3\xafve caf\xc3\xa9 \xe2\x82\xac"
                            "5 \xf0\x9f\x98\x80"));
}

TEST(LooksLikeText, NulIsNotText) {
  EXPECT_FALSE(core::looks_like_text(std::string("a\0b", 3)));
  EXPECT_FALSE(core::looks_like_text(std::string(1, '\0')));
}

TEST(LooksLikeText, BrokenSequencesAreNotText) {
  EXPECT_FALSE(core::looks_like_text("\xff"));
  EXPECT_FALSE(core::looks_like_text("\xfe\xff"));
  EXPECT_FALSE(core::looks_like_text("\x80"));          // a continuation byte alone
  EXPECT_FALSE(core::looks_like_text("abc\xc3"));       // cut short at the end
  EXPECT_FALSE(core::looks_like_text("\xe2\x82"));      // cut short
  EXPECT_FALSE(core::looks_like_text("\xf0\x9f\x98"));  // cut short
  EXPECT_FALSE(core::looks_like_text("\xc3\x41"));      // a non-continuation after a lead byte
  EXPECT_FALSE(core::looks_like_text("\xe2\x28\xa1"));
  EXPECT_FALSE(core::looks_like_text("\xf8\x88\x80\x80\x80"));  // 5-byte forms are gone
}

// What nlohmann::json would replace with U+FFFD on output must not be called text, or a binary
// file would reach the client as mangled text instead of as a base64 blob.
TEST(LooksLikeText, OverlongSurrogateAndOutOfRangeSequencesAreNotText) {
  EXPECT_FALSE(core::looks_like_text("\xc0\x80"));          // overlong NUL
  EXPECT_FALSE(core::looks_like_text("\xc1\xbf"));          // overlong
  EXPECT_FALSE(core::looks_like_text("\xe0\x80\xaf"));      // overlong '/'
  EXPECT_FALSE(core::looks_like_text("\xf0\x80\x80\xaf"));  // overlong '/'
  EXPECT_FALSE(core::looks_like_text("\xed\xa0\x80"));      // U+D800, a surrogate
  EXPECT_FALSE(core::looks_like_text("\xed\xbf\xbf"));      // U+DFFF, a surrogate
  EXPECT_FALSE(core::looks_like_text("\xf4\x90\x80\x80"));  // U+110000, past the last code point
  EXPECT_FALSE(core::looks_like_text("\xf5\x80\x80\x80"));
  EXPECT_FALSE(core::looks_like_text("\xf7\xbf\xbf\xbf"));
}

TEST(LooksLikeText, ACutFileMayEndInsideACharacter) {
  for (const char* start : {"abc\xc3", "\xe2\x82", "\xe2", "\xf0\x9f\x98", "\xf0\x9f", "\xf0"}) {
    EXPECT_TRUE(core::looks_like_text(start, true)) << start;
    EXPECT_FALSE(core::looks_like_text(start, false)) << start;
  }
  // But what is there must still be a character's start.
  for (const char* broken :
       {"\xc3\x41", "\xe0\x80", "\xed\xa0", "\xf4\x90", "\xff", "\x80", "\xc0"}) {
    EXPECT_FALSE(core::looks_like_text(broken, true)) << broken;
  }
  EXPECT_FALSE(core::looks_like_text(std::string("a\0", 2), true));
}

}  // namespace
}  // namespace paddock::mime_types_test
