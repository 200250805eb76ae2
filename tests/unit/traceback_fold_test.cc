// A fresh call's Python traceback folded as a live cell's is (language/traceback_fold.h).

#include "language/traceback_fold.h"

#include <gtest/gtest.h>

namespace paddock::language::traceback_fold_test {
namespace {

// What python3.11 printed for urllib.request.urlopen('http://example.org') in a sandbox with no
// network (frames trimmed to the lines that matter here), in the pieces the folding keeps or
// replaces.
constexpr const char* kFirstLibraryFrames =
    "  File \"/usr/lib/python3.11/urllib/request.py\", line 1348, in do_open\n"
    "    h.request(req.get_method(), req.selector, req.data, headers,\n"
    "  File \"/usr/lib/python3.11/http/client.py\", line 1286, in request\n"
    "    self._send_request(method, url, body, headers, encode_chunked)\n";
constexpr const char* kFirstEnd =
    "  File \"/usr/lib/python3.11/socket.py\", line 962, in getaddrinfo\n"
    "    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):\n"
    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "socket.gaierror: [Errno -3] Temporary failure in name resolution\n"
    "\n"
    "During handling of the above exception, another exception occurred:\n"
    "\n"
    "Traceback (most recent call last):\n"
    "  File \"/work/main.py\", line 2, in <module>\n"
    "    urllib.request.urlopen('http://example.org')\n";
constexpr const char* kSecondLibraryFrames =
    "  File \"/usr/lib/python3.11/urllib/request.py\", line 216, in urlopen\n"
    "    return opener.open(url, data, timeout)\n"
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "  File \"/usr/lib/python3.11/urllib/request.py\", line 519, in open\n"
    "    response = self._open(req, data)\n";
constexpr const char* kSecondEnd =
    "  File \"/usr/lib/python3.11/urllib/request.py\", line 1351, in do_open\n"
    "    raise URLError(err)\n"
    "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n";
constexpr const char* kStart = "Traceback (most recent call last):\n";

TEST(TracebackFold, LibraryFramesAreOneLineAndTheUsersAndTheLastStay) {
  std::string printed =
      std::string(kStart) + kFirstLibraryFrames + kFirstEnd + kSecondLibraryFrames + kSecondEnd;
  EXPECT_EQ(fold_library_frames(printed),
            std::string(kStart) +
                "  [... 2 library frames left out: urllib/request.py:1348 in do_open, "
                "http/client.py:1286 in request]\n" +
                kFirstEnd +
                "  [... 2 library frames left out: urllib/request.py:216 in urlopen, "
                "urllib/request.py:519 in open]\n" +
                kSecondEnd);
}

TEST(TracebackFold, OtherTextAndTheUsersOwnFramesAreUntouched) {
  const std::string plain = "hello\n  File \"x\" is not a frame of a traceback here\nbye";
  // A lone frame line is the last frame of its run: kept.
  EXPECT_EQ(fold_library_frames(plain), plain);
  const std::string own =
      "Traceback (most recent call last):\n"
      "  File \"/work/main.py\", line 3, in <module>\n"
      "    f()\n"
      "  File \"/work/helper.py\", line 1, in f\n"
      "    1 / 0\n"
      "ZeroDivisionError: division by zero\n";
  EXPECT_EQ(fold_library_frames(own), own);
  EXPECT_EQ(fold_library_frames(""), "");
}

}  // namespace
}  // namespace paddock::language::traceback_fold_test
