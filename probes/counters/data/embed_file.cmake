# Embeds a file into the binary: writes a C++ source that defines
#   extern const unsigned char fabdiag::embedded::<SYMBOL>[];      (the bytes, plus a final NUL)
#   extern const std::size_t fabdiag::embedded::<SYMBOL>Size;      (the byte count, without the NUL)
# Usage: cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=kName -P embed_file.cmake
# Run at build time (add_custom_command), so the binary has no install-path dependency.
if(NOT INPUT OR NOT OUTPUT OR NOT SYMBOL)
  message(FATAL_ERROR "embed_file.cmake needs -DINPUT=, -DOUTPUT= and -DSYMBOL=")
endif()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REPEAT "0x[0-9a-f][0-9a-f]," 16 sixteen)
string(REGEX REPLACE "(${sixteen})" "\\1\n" bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${input_name} by embed_file.cmake at build time. Do not edit.\n"
  "#include <cstddef>\n\n"
  "namespace fabdiag::embedded {\n"
  "extern const unsigned char ${SYMBOL}[];\n"
  "extern const std::size_t ${SYMBOL}Size;\n"
  "const unsigned char ${SYMBOL}[] = {\n${bytes}0x00};\n"
  "const std::size_t ${SYMBOL}Size = ${size};\n"
  "}  // namespace fabdiag::embedded\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
