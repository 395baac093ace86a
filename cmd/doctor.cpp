#include "cmd/commands.h"

namespace fabdiag::cmd {

int run_doctor(const GlobalOptions& g, const DoctorOptions&) {
  Envelope env = make_envelope("fabdiag.doctor/1");
  Document doc;
  doc.title = "fabdiag doctor";
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
