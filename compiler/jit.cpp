/* compiler stage: in-process C compiler (Clang 16) + ORC JIT loader + on-disk
 * object cache. The C++ shim behind the C API of jit.h.
 *
 * Flow of jit_compile:
 *   key = FNV-1a(source, headers, cc1 options, cpu, triple, versions)
 *   hit:  <cache_dir>/<key>.o -> bytes -> load           (no compiling)
 *   miss: source -> Clang (EmitObjAction, output stream in memory) -> bytes
 *         -> load -> store in the cache (temp file + rename)
 *   load: a fresh LLJIT per module; the object is added and all of its global
 *         symbols are linked at once, so unresolved references fail here and
 *         not later in jit_symbol. Undefined symbols resolve from the process.
 * Every extern "C" entry point catches all C++ exceptions. */
#include "jit.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#ifndef SSMC_CLANG_RESOURCE_DIR
#define SSMC_CLANG_RESOURCE_DIR "/usr/lib/llvm-16/lib/clang/16"
#endif

/* Members are destroyed bottom-up: the LLJIT goes first, while the string its
 * error reporter writes to still exists. */
struct jit_module {
  std::string session_errors; /* what the ExecutionSession reported (link errors) */
  std::unordered_map<std::string, void *> symbols; /* global definitions of the object */
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

namespace {

/* In-memory headers live here; "-I" makes them reachable as "name" or <name>. */
const char kVirtualDir[] = "/ssmc-jit-headers";

void put_err(char *err, size_t errlen, const std::string &msg) {
  if (!err || errlen == 0) return;
  size_t n = msg.size() < errlen - 1 ? msg.size() : errlen - 1;
  memcpy(err, msg.data(), n);
  err[n] = '\0';
}

void init_llvm_once() {
  static const bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)done;
}

/* ---- compile options ---------------------------------------------------- */

/* cc1 arguments; everything but the input. Also the "option string" hashed
 * into the cache key. */
std::vector<std::string> jit_cc1_args(const std::string &cpu, const std::string &triple) {
  const std::string res = SSMC_CLANG_RESOURCE_DIR;
  return {"-triple", triple, "-emit-obj", "-O2", "-ffp-contract=fast", "-ffreestanding",
          "-target-cpu", cpu, "-vectorize-loops", "-vectorize-slp",
          /* PIC: JIT memory may sit anywhere; externals go through GOT/PLT stubs. */
          "-mrelocation-model", "pic", "-pic-level", "2", "-pic-is-pie",
          "-fno-rounding-math", "-discard-value-names", "-clear-ast-before-backend",
          "-ferror-limit", "19", "-resource-dir", res, "-internal-isystem", res + "/include",
          "-I", kVirtualDir};
}

std::string jit_join(const std::vector<std::string> &args) {
  std::string s;
  for (const std::string &a : args) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

/* ---- cache key ---------------------------------------------------------- */

struct jit_fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void *p, size_t n) {
    const unsigned char *b = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < n; i++) {
      h ^= b[i];
      h *= 0x100000001b3ull;
    }
  }
  /* Length-prefixed, so field boundaries are part of the hash. */
  void field(llvm::StringRef s) {
    uint64_t n = s.size();
    bytes(&n, sizeof n);
    bytes(s.data(), s.size());
  }
};

std::string jit_cache_key(const char *src, const jit_header *headers, const std::string &opts,
                          const std::string &cpu, const std::string &triple) {
  jit_fnv f;
  f.field("ssmc-jit-cache-1");
  f.field(src);
  for (const jit_header *h = headers; h && h->name; h++) {
    f.field(h->name);
    f.field(h->text ? h->text : "");
  }
  f.field(opts);
  f.field(cpu);
  f.field(triple);
  f.field(LLVM_VERSION_STRING);
  f.field(clang::getClangFullVersion());
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)f.h);
  return hex;
}

/* ---- object cache (best effort: every failure is a miss) ---------------- */

std::unique_ptr<llvm::MemoryBuffer> jit_cache_read(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf || (*buf)->getBufferSize() == 0) return nullptr;
  return std::move(*buf);
}

bool jit_write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* Temp file in the same directory, then rename(): readers see either no
 * file or the whole object. */
bool jit_cache_store(const std::string &dir, const std::string &path, llvm::StringRef bytes) {
  if (llvm::sys::fs::create_directories(dir)) return false;
  std::string tmp = dir + "/.tmp-XXXXXX";
  int fd = mkstemp(&tmp[0]);
  if (fd < 0) return false;
  bool ok = jit_write_all(fd, bytes.data(), bytes.size());
  ok = (close(fd) == 0) && ok;
  ok = ok && fchmodat(AT_FDCWD, tmp.c_str(), 0644, 0) == 0;
  ok = ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) unlink(tmp.c_str());
  return ok;
}

/* ---- compiling ---------------------------------------------------------- */

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> jit_make_vfs(const jit_header *headers) {
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const jit_header *h = headers; h && h->name; h++) {
    std::string path = std::string(kVirtualDir) + "/" + h->name;
    mem->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(h->text ? h->text : "", path));
  }
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(mem);
  return overlay;
}

/* Compiles `src` into an ELF object in `obj`; on failure returns false with
 * the compiler's diagnostics in `diags`. */
bool jit_compile_object(const char *src, const std::string &name, const jit_header *headers,
                        const std::vector<std::string> &args, llvm::SmallVectorImpl<char> &obj,
                        std::string &diags) {
  llvm::raw_string_ostream dos(diags);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> dopts = new clang::DiagnosticOptions();
  dopts->ShowColors = false;
  clang::TextDiagnosticPrinter printer(dos, dopts.get());

  std::vector<const char *> argv;
  for (const std::string &a : args) argv.push_back(a.c_str());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine argdiags(ids, dopts, &printer, /*ShouldOwnClient=*/false);
  auto inv = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*inv, argv, argdiags) ||
      argdiags.hasErrorOccurred()) {
    dos.flush();
    if (diags.empty()) diags = "invalid compiler options";
    return false;
  }
  /* The source is a memory buffer named `name`: messages read name:line:col. */
  llvm::MemoryBufferRef input(src, name);
  inv->getFrontendOpts().Inputs.assign(
      1, clang::FrontendInputFile(input, clang::InputKind(clang::Language::C)));
  inv->getFrontendOpts().OutputFile = "-";

  clang::CompilerInstance ci;
  ci.setInvocation(std::move(inv));
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.createFileManager(jit_make_vfs(headers));
  ci.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>()); /* "N errors generated." */
  ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(obj));

  clang::EmitObjAction act;
  bool ok = ci.ExecuteAction(act) && !ci.getDiagnostics().hasErrorOccurred();
  dos.flush();
  if (ok && obj.empty()) {
    diags = "compiler produced no object";
    ok = false;
  }
  if (!ok && diags.empty()) diags = "compilation failed";
  return ok;
}

/* ---- loading ------------------------------------------------------------ */

/* Adds the object to a fresh LLJIT and links every global it defines. */
llvm::Error jit_load(jit_module &m, std::unique_ptr<llvm::MemoryBuffer> obj) {
  using namespace llvm::orc;
  auto jit = LLJITBuilder().setPlatformSetUp(setUpInactivePlatform).create();
  if (!jit) return jit.takeError();
  m.jit = std::move(*jit);
  ExecutionSession &es = m.jit->getExecutionSession();
  /* Link errors (e.g. "Symbols not found") go to the session's reporter, not
   * into the Error of the lookup: keep them for the message, off stderr. */
  std::string *sink = &m.session_errors;
  es.setErrorReporter([sink](llvm::Error e) {
    if (!sink->empty()) *sink += "; ";
    *sink += llvm::toString(std::move(e));
  });
  JITDylib &jd = m.jit->getMainJITDylib();
  auto gen = DynamicLibrarySearchGenerator::GetForCurrentProcess(
      m.jit->getDataLayout().getGlobalPrefix());
  if (!gen) return gen.takeError();
  jd.addGenerator(std::move(*gen));

  auto iface = getObjectFileInterface(es, obj->getMemBufferRef());
  if (!iface) return iface.takeError();
  SymbolLookupSet want;
  for (auto &kv : iface->SymbolFlags)
    if (!kv.second.hasMaterializationSideEffectsOnly()) want.add(kv.first);

  if (llvm::Error e = m.jit->addObjectFile(jd, std::move(obj))) return e;
  if (want.empty()) return llvm::Error::success();
  auto syms = es.lookup(makeJITDylibSearchOrder(&jd), std::move(want));
  if (!syms) return syms.takeError();
  for (auto &kv : *syms)
    m.symbols[(*kv.first).str()] = reinterpret_cast<void *>(kv.second.getAddress());
  return llvm::Error::success();
}

/* Loads bytes into a new module; nullptr with the reason in `why` on failure. */
std::unique_ptr<jit_module> jit_load_bytes(std::unique_ptr<llvm::MemoryBuffer> obj,
                                           std::string &why) {
  auto m = std::make_unique<jit_module>();
  if (llvm::Error e = jit_load(*m, std::move(obj))) {
    why = "JIT load failed: " + llvm::toString(std::move(e));
    if (!m->session_errors.empty()) why += " (" + m->session_errors + ")";
    return nullptr;
  }
  return m;
}

jit_module *jit_compile_impl(const char *src, const char *name, const jit_header *headers,
                             const char *cpu_in, const char *cache_dir, int *from_cache,
                             char *err, size_t errlen) {
  if (!src) {
    put_err(err, errlen, "jit_compile: no source");
    return nullptr;
  }
  init_llvm_once();
  const std::string fname = name && *name ? name : "input.c";
  const std::string cpu = cpu_in && *cpu_in ? cpu_in : llvm::sys::getHostCPUName().str();
  const std::string triple = llvm::sys::getProcessTriple();
  const std::vector<std::string> args = jit_cc1_args(cpu, triple);

  std::string dir, path;
  if (cache_dir && *cache_dir) {
    dir = cache_dir;
    path = dir + "/" + jit_cache_key(src, headers, jit_join(args), cpu, triple) + ".o";
    if (auto cached = jit_cache_read(path)) {
      std::string why;
      if (auto m = jit_load_bytes(std::move(cached), why)) {
        if (from_cache) *from_cache = 1;
        return m.release();
      }
      /* An unloadable cached object is a miss; it is overwritten below. */
    }
  }

  llvm::SmallVector<char, 0> obj;
  std::string diags;
  if (!jit_compile_object(src, fname, headers, args, obj, diags)) {
    put_err(err, errlen, diags);
    return nullptr;
  }
  llvm::StringRef bytes(obj.data(), obj.size());
  std::string why;
  auto m = jit_load_bytes(llvm::MemoryBuffer::getMemBufferCopy(bytes, fname), why);
  if (!m) {
    put_err(err, errlen, why);
    return nullptr;
  }
  /* Only objects that loaded are cached; a failed store is not an error. */
  if (!path.empty()) (void)jit_cache_store(dir, path, bytes);
  return m.release();
}

}  // namespace

extern "C" jit_module *jit_compile(const char *src, const char *name, const jit_header *headers,
                                   const char *cpu, const char *cache_dir, int *from_cache,
                                   char *err, size_t errlen) {
  if (from_cache) *from_cache = 0;
  put_err(err, errlen, "");
  try {
    return jit_compile_impl(src, name, headers, cpu, cache_dir, from_cache, err, errlen);
  } catch (const std::exception &e) {
    put_err(err, errlen, std::string("jit_compile: internal error: ") + e.what());
  } catch (...) {
    put_err(err, errlen, "jit_compile: internal error");
  }
  return nullptr;
}

extern "C" void *jit_symbol(jit_module *m, const char *symbol) {
  if (!m || !symbol) return nullptr;
  try {
    auto it = m->symbols.find(symbol);
    return it == m->symbols.end() ? nullptr : it->second;
  } catch (...) {
    return nullptr;
  }
}

extern "C" void jit_free(jit_module *m) {
  try {
    delete m;
  } catch (...) {
  }
}

extern "C" const char *jit_version(void) { return "clang " CLANG_VERSION_STRING; }
