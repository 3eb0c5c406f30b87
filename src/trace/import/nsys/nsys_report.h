// Nsight Systems' own files, which only Nsight Systems reads: a report (.nsys-rep, older
// .qdrep) is turned into a SQLite export by `nsys export --type sqlite`, and a raw stream
// (.qdstrm, what `nsys profile` leaves when it cannot run its importer, as Nsight Compute's
// copy of nsys does) first into a report by the QdstrmImporter beside nsys. Both run on a copy
// in a temporary folder, removed afterwards; the user's file is never touched (the importer
// writes into its input).
#pragma once

#include <optional>
#include <string>

namespace trace {

// The nsys to run: $IRIS_NSYS when set, else `nsys` on PATH; nullopt (and why) when neither.
std::optional<std::string> find_nsys(std::string* why);

// A SQLite export of `report`, in a temporary folder that lives as long as this object.
// Throws InputError naming the file and quoting nsys when there is no nsys or it fails.
class NsysExport {
 public:
  NsysExport(const std::string& report, bool raw_stream);
  ~NsysExport();
  NsysExport(const NsysExport&) = delete;
  NsysExport& operator=(const NsysExport&) = delete;
  const std::string& sqlite() const { return sqlite_; }

 private:
  void make(const std::string& report, bool raw_stream, const std::string& nsys);
  void remove_dir();
  std::string dir_, sqlite_;
};

}  // namespace trace
