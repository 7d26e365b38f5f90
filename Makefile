# mcsgen: see README.md. `make demo` runs the main job, `make test` the tests.
SHELL := /bin/bash
PYTHON := /usr/bin/python3
export PYTHONHASHSEED := 0
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export PYTHONDONTWRITEBYTECODE := 1

CFLAGS_STRICT := -std=c99 -pedantic -Wall -Wextra -Werror
INCLUDES := -Iruntime/include -Iruntime/src
LIBS := -llapacke -llapack -lblas -lm
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# the runtime library by layer: runtime/src/{linalg,basis,sim,sim/variant,analysis}/ (docs/
# develop/layout.md); its files include each other's internal headers by their path under runtime/src/
LIB_SRC := $(sort $(wildcard runtime/src/*/*.c runtime/src/*/*/*.c))
RUNTIME_SRC := $(filter-out runtime/src/linalg/mcs_linalg_portable.c,$(LIB_SRC))
PORTABLE_SRC := $(filter-out runtime/src/linalg/mcs_linalg_lapack.c,$(LIB_SRC))
RUNTIME_HDR := $(wildcard runtime/include/mcs/*.h runtime/src/*/*.h runtime/src/*/*/*.h)
TEST_MODELS := spatial_pendulum pendulum_3r planar_pendulum_redundant pendulum_3r_bodies slider_crank \
	pendulum_kc pendulum_torsion double_four_bar modified_triple_four_bar pendulum_stop
TEST_MODEL_SRC := $(foreach m,$(TEST_MODELS),generated/$(m)/$(m).c)
TEST_MODEL_INC := $(foreach m,$(TEST_MODELS),-Igenerated/$(m))
B := build

.PHONY: all deps docs generate options-table check-generated runtime lint test test-c test-sanitize test-py test-slow test-configs-edges demo bench \
        firmware install develop clean fuzz fuzz-deps test-fuzz-replay misra bench-compare c-binaries \
        test-configs test-configs-all bench-compare-cli

all: runtime

deps:
	@scripts/install-deps

# Regenerate every model (forced), and check that the committed generated/ is what the
# generator makes now.
generate: deps
	./mcsgen generate --force

# The simulate options' C table and the manual's table, from generator/mcsgen/options.py.
options-table:
	PYTHONPATH=generator $(PYTHON) -m mcsgen.options

# Every shipped model generated in a process whose numpy, scipy and math round one ulp off
# (tests/generator/perturbed_generate.py), in two processes (the PUMA 560, two thirds of the time,
# and the slider-crank; the rest), compared with generated/: it is up to date, and no machine
# floating-point value reaches it (docs/explanation/determinism.md).
REGEN = PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	$(PYTHON) tests/generator/perturbed_generate.py $(B)/regen
check-generated: deps
	@rm -rf $(B)/regen && mkdir -p $(B)/regen
	@$(REGEN) models/puma560_estop.yaml models/slider_crank.yaml > /dev/null & first=$$!; \
	  $(REGEN) $(filter-out models/puma560_estop.yaml models/slider_crank.yaml, \
	    $(sort $(wildcard models/*.yaml))) > /dev/null || status=1; \
	  wait $$first || status=1; exit $${status:-0}
	@diff -r generated $(B)/regen > $(B)/regen.diff \
	  && echo "generated/ is up to date" \
	  || { echo "generated/ differs from a fresh generation (run 'make generate'):"; head -40 $(B)/regen.diff; exit 1; }

runtime: $(B)/libmcs.a

$(B)/obj/%.o: runtime/src/%.c $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_STRICT) -O2 $(INCLUDES) -c $< -o $@

$(B)/libmcs.a: $(patsubst runtime/src/%.c,$(B)/obj/%.o,$(RUNTIME_SRC))
	ar rcs $@ $^

# ---- tests -----------------------------------------------------------------------------------
# Each build of the tests (default, ASan/UBSan, portable, and the fuzz replay's four) compiles the
# runtime and the models once, into build/obj-<variant>/, and links every test program from those
# objects (compiling them again for each of the 31 programs took four minutes of `make test`).
# Objects: rt/<file>.o of runtime/src, gen/<model>/<model>.o of generated/.
VARIANT_FLAGS_test := -O2
VARIANT_FLAGS_asan := -O1 -g $(SANITIZE)
VARIANT_FLAGS_portable := -O2 -DMCS_LINALG_PORTABLE -DMCS_SMALL_KERNELS=1
# runtime objects of a variant: $(call rt_objs,VARIANT,SOURCES)
rt_objs = $(patsubst runtime/src/%.c,$(B)/obj-$(1)/rt/%.o,$(2))
gen_objs = $(foreach m,$(2),$(B)/obj-$(1)/gen/$(m)/$(m).o)

define VARIANT_RULES
$(B)/obj-$(1)/rt/%.o: runtime/src/%.c $(RUNTIME_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_STRICT) $(2) $$(INCLUDES) -c $$< -o $$@
$(B)/obj-$(1)/gen/%.o: generated/%.c generated/%.h $(RUNTIME_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_STRICT) $(2) $$(INCLUDES) -I$$(dir $$<) -c $$< -o $$@
endef
$(eval $(call VARIANT_RULES,test,$(VARIANT_FLAGS_test)))
$(eval $(call VARIANT_RULES,asan,$(VARIANT_FLAGS_asan)))
$(eval $(call VARIANT_RULES,portable,$(VARIANT_FLAGS_portable)))

# test_banded also runs models no other test needs (rule prerequisites take them; the recipes
# see them through the target-specific TEST_MODELS_OF / TEST_MODEL_INC)
BANDED_MODELS := spin_top
TEST_MODELS_OF = $(TEST_MODELS) $(if $(findstring test_banded,$(1)),$(BANDED_MODELS))
test_model_inc = $(foreach m,$(call TEST_MODELS_OF,$(1)),-Igenerated/$(m))

# $(B)/tests/T, $(B)/tests-asan/T, $(B)/tests-portable/T: tests/runtime/T.c linked with the
# variant's runtime (RUNTIME_SRC, or PORTABLE_SRC without LAPACK) and models
define TEST_RULE
$(B)/$(1)/%: tests/runtime/%.c $(RUNTIME_HDR) \
    $$$$(call rt_objs,$(2),$(3)) $$$$(call gen_objs,$(2),$$$$(call TEST_MODELS_OF,$$$$*))
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_STRICT) $$(VARIANT_FLAGS_$(2)) $$(INCLUDES) $$(call test_model_inc,$$*) $$< \
	  $$(call rt_objs,$(2),$(3)) $$(call gen_objs,$(2),$$(call TEST_MODELS_OF,$$*)) \
	  -o $$@ -lcmocka $(4)
endef
.SECONDEXPANSION:
# the objects are intermediate files of the test programs: kept, so that the next build relinks
.SECONDARY:
$(eval $(call TEST_RULE,tests,test,$(RUNTIME_SRC),$(LIBS)))
$(eval $(call TEST_RULE,tests-asan,asan,$(RUNTIME_SRC),$(LIBS)))
$(eval $(call TEST_RULE,tests-portable,portable,$(PORTABLE_SRC),-lm))

C_TESTS := test_basis test_sim test_methods test_dynamics test_step test_assembly test_options \
	test_linearize test_events test_memory test_linalg test_transition test_locks test_statics \
	test_modes test_compact test_banded test_configs test_stops

test-c: deps $(addprefix $(B)/tests/,$(C_TESTS)) $(addprefix $(B)/tests-portable/,$(C_TESTS))
	@for t in $(C_TESTS); do $(B)/tests/$$t || exit 1; done
	@for t in $(C_TESTS); do $(B)/tests-portable/$$t || exit 1; done

test-sanitize: deps $(addprefix $(B)/tests-asan/,$(C_TESTS))
	@for t in $(C_TESTS); do \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(B)/tests-asan/$$t || exit 1; done

# the runtime in the combinations of its parts mcs_config.h allows (MCS_WITH_*: 192), under
# ASan/UBSan (scripts/config-matrix): test_configs in all 192 and every C test in the full build
# (2 minutes on 2 cores from a fresh clone: 597 objects, one per combination of the switches a
# unit reads); test-configs-edges (make test-slow): every C test in the 11 at the edges too;
# test-configs-all: every C test in all 192
test-configs: deps
	@$(PYTHON) scripts/config-matrix --build $(B) --set full --everywhere test_configs

test-configs-edges: deps
	@$(PYTHON) scripts/config-matrix --build $(B) --set edges

test-configs-all: deps
	@$(PYTHON) scripts/config-matrix --build $(B)

test-py: deps
	$(PYTHON) -m pytest -q -n 2 --dist loadfile -m "not slow" tests

# The slow tier (docs/develop/tests.md, "The slow tier"): the tests marked slow (a family's runs
# beyond its representative models, studies, a second path to what make test covers) and every C
# test at the configurations' edges; about 6 minutes on 2 cores after make test
test-slow: deps
	$(PYTHON) -m pytest -q -n 2 --dist loadfile -m slow tests
	@$(MAKE) --no-print-directory test-configs-edges

# ---- fuzzing (issue 16; docs/develop/fuzzing.md) ------------------------------------------------------
# One harness (tests/fuzz/fuzz_runtime.c) per linear-algebra backend and precision, linking the
# spatial pendulum, the slider-crank and the double four-bar. `make fuzz` runs each for
# FUZZ_SECONDS with libFuzzer (clang) and keeps crashing inputs in tests/fuzz/crashes/; `make test`
# replays the committed corpus and crashes through gcc's sanitizers (seconds).
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= 2
FUZZ_MODELS := spatial_pendulum slider_crank double_four_bar
FUZZ_MODEL_SRC := $(foreach m,$(FUZZ_MODELS),generated/$(m)/$(m).c)
FUZZ_MODEL_INC := $(foreach m,$(FUZZ_MODELS),-Igenerated/$(m))
FUZZ_VARIANTS := double-lapack double-portable float-lapack float-portable
fuzz_flags = $(if $(findstring float,$(1)),-DMCS_REAL_FLOAT) \
	$(if $(findstring portable,$(1)),-DMCS_LINALG_PORTABLE)
fuzz_src = $(if $(findstring portable,$(1)),$(PORTABLE_SRC),$(RUNTIME_SRC))
fuzz_libs = $(if $(findstring portable,$(1)),-lm,$(LIBS))
FUZZ_DEPS := tests/fuzz/fuzz_runtime.c $(RUNTIME_SRC) $(PORTABLE_SRC) $(RUNTIME_HDR) $(FUZZ_MODEL_SRC)

$(B)/fuzz/%: $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(call fuzz_flags,$*) $(INCLUDES) $(FUZZ_MODEL_INC) tests/fuzz/fuzz_runtime.c \
	  $(call fuzz_src,$*) $(FUZZ_MODEL_SRC) -o $@ $(call fuzz_libs,$*)

# the replay: objects of its own per variant (replay-<variant>, as the tests' builds above), but
# double-lapack's flags are the ASan tests' (-O1 -g $(SANITIZE)): it links their objects
$(foreach v,$(FUZZ_VARIANTS),$(eval $(call VARIANT_RULES,replay-$(v),-O1 -g $(SANITIZE) \
  $(call fuzz_flags,$(v)))))
replay_objs = $(if $(filter double-lapack,$(1)),asan,replay-$(1))
$(B)/fuzz-replay/%: tests/fuzz/fuzz_runtime.c tests/fuzz/replay.c $(RUNTIME_HDR) \
    $$(call rt_objs,$$(call replay_objs,$$*),$$(call fuzz_src,$$*)) \
    $$(call gen_objs,$$(call replay_objs,$$*),$(FUZZ_MODELS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_STRICT) -O1 -g $(SANITIZE) $(call fuzz_flags,$*) $(INCLUDES) $(FUZZ_MODEL_INC) \
	  tests/fuzz/fuzz_runtime.c tests/fuzz/replay.c \
	  $(call rt_objs,$(call replay_objs,$*),$(call fuzz_src,$*)) \
	  $(call gen_objs,$(call replay_objs,$*),$(FUZZ_MODELS)) -o $@ $(call fuzz_libs,$*)

fuzz-deps:
	@scripts/install-deps fuzz

fuzz: deps fuzz-deps $(addprefix $(B)/fuzz/,$(FUZZ_VARIANTS))
	@mkdir -p tests/fuzz/crashes
	@for v in $(FUZZ_VARIANTS); do echo $$v; done | xargs -P $(FUZZ_JOBS) -I{} sh -c \
	  'mkdir -p $(B)/fuzz/corpus-{} && $(B)/fuzz/{} $(B)/fuzz/corpus-{} tests/fuzz/corpus \
	   -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
	   -artifact_prefix=tests/fuzz/crashes/{}- > $(B)/fuzz/{}.log 2>&1; \
	   echo "{}: exit $$?, $$(grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units" \
	   $(B)/fuzz/{}.log | tail -2 | tr "\n" " ")"'
	@for v in $(FUZZ_VARIANTS); do grep -h "cov:" $(B)/fuzz/$$v.log | tail -1 | sed "s/^/$$v: /"; done
	@! ls tests/fuzz/crashes | grep -q . || { echo "crashing inputs in tests/fuzz/crashes/"; exit 1; }

test-fuzz-replay: deps $(addprefix $(B)/fuzz-replay/,$(FUZZ_VARIANTS))
	@for v in $(FUZZ_VARIANTS); do \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(B)/fuzz-replay/$$v tests/fuzz/corpus tests/fuzz/regressions tests/fuzz/crashes > /dev/null || exit 1; done
	@echo "fuzz corpus replayed: $(FUZZ_VARIANTS)"

# Formatting and static checks (black, flake8, clang-format; configured in pyproject.toml, .flake8
# and .clang-format). Generated C is not linted.
C_LINT := $(filter-out runtime/app/mcs_options_table.h,$(sort $(LIB_SRC) $(wildcard runtime/src/*/*.h \
          runtime/include/mcs/*.h runtime/app/*.[ch] tests/runtime/*.c tests/fuzz/*.c bench/*.c)))
lint: deps
	black --check --quiet generator tests bench
	flake8 generator tests bench
	clang-format --dry-run --Werror $(C_LINT)
	@echo "lint: clean"

# The README's test command (README.md, docs/setup.md): about 19 minutes on 2 cores from a
# fresh clone (pytest 13; the target is 15: docs/develop/tests.md measures where the time goes);
# make test-slow runs what it leaves out.
# the C tests under the sanitizers are test-configs' full build (the same programs and flags as
# test-sanitize, which stays for a quick run of them alone)
test: deps lint check-generated misra c-binaries test-c test-fuzz-replay test-configs test-py

# Every C test program make test runs, compiled on both cores (each links its build's objects of
# the runtime and the models: build/obj-<variant>/, compiled once per variant).
C_TEST_BINS = $(addprefix $(B)/tests/,$(C_TESTS)) $(addprefix $(B)/tests-portable/,$(C_TESTS)) \
	$(addprefix $(B)/fuzz-replay/,$(FUZZ_VARIANTS))
c-binaries: deps
	@$(MAKE) --no-print-directory -j2 $(C_TEST_BINS)

# MISRA C:2012 (Cppcheck's addon) over the runtime and every generated model, with the
# deviations of misra/deviations.txt; fails on any finding left or any unused deviation.
misra: deps
	./mcsgen misra --all

# ---- the main job ----------------------------------------------------------------------------
# The manual (docs/, mkdocs.yml): a static site in build/site/, strict (a warning fails it); its
# reference pages are generated from the code (generator/mcsgen/manual/). `make test` builds it
# too and checks its links and its examples (tests/docs/).
docs: deps
	PYTHONPATH=generator mkdocs build --strict
	@echo "docs: open build/site/index.html"

demo: deps
	./mcsgen generate spatial_pendulum
	./mcsgen check spatial_pendulum
	./mcsgen simulate spatial_pendulum --continuation exp --out out/spatial_pendulum_continued.csv
	./mcsgen simulate spatial_pendulum --continuation off --out out/spatial_pendulum_traditional.csv
	./mcsgen plot out/spatial_pendulum_continued.csv out/spatial_pendulum_traditional.csv \
	  --label continued --label traditional --out out/spatial_pendulum.png
	@echo "demo: CSV and out/spatial_pendulum.png written"

bench: deps
	$(PYTHON) bench/run.py

# The integration loop of this checkout against revision REV, interleaved in one run (ratios).
REV ?= HEAD~1
bench-compare: deps
	$(PYTHON) bench/compare.py $(REV)

# every command-line run of the shipped models against REV's, byte for byte (bench/cli_compare.py)
bench-compare-cli: deps
	$(PYTHON) bench/cli_compare.py $(REV)

# Cortex-M4F builds (float, -Os, portable linear algebra, no heap): flash and RAM per model, and
# each model's run under QEMU for its file's firmware: t_end (else its simulation: t_end); the
# Delta robot's computed-torque controller (firmware/delta_control.c) with its tracking error and
# instructions per tick.
# The cross toolchain and QEMU (gcc-arm-none-eabi, libnewlib-arm-none-eabi, qemu-system-arm:
# `deps` installs them, scripts/firmware too when they are missing) take about 900 MB on Debian
# bookworm: dpkg-query's Installed-Size of the three (436 024 + 368 870 + 42 850 KiB) plus that of
# the 33 packages `apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts
# --no-breaks --no-replaces --no-enhances` lists for them and not for the other packages of
# scripts/install-deps (qemu-system-common and -data, binutils-arm-none-eabi, libcapstone4,
# GStreamer, libspice-server1, ...: 59 589 KiB), 907 333 KiB = 929 MB. tests/test_readme.py
# checks that the manual says the same and, where they are installed, recounts it from dpkg.
firmware: deps
	@for m in spatial_pendulum pendulum_3r double_four_bar slider_crank; do \
	  scripts/firmware $$m || exit 1; done
	@mkdir -p $(B)/firmware
	@./mcsgen import-urdf models/urdf/puma560.urdf --out $(B)/firmware/puma560.yaml $(PUMA_START) \
	  > /dev/null
	@scripts/firmware $(B)/firmware/puma560.yaml
	@scripts/firmware --app firmware/delta_control.c delta_robot

# the PUMA 560 of models/urdf/ in joint coordinates (issue 36) `make firmware` builds too,
# imported at the start state of tests/e2e/test_firmware_qemu.py (PUMA_START)
PUMA_START := --q J2=pi/4 --q J3=pi --q J5=pi/4 --qd J1=1 --qd J2=-0.8 --qd J3=0.6 --qd J4=0.5 \
	--qd J5=0.5 --qd J6=0.5

# The runtime's headers and static libraries (double and float, LAPACK and portable), the mcsgen
# command, the Python package (`import mcsgen`: PREFIX/lib/python3.X/dist-packages, which Debian's
# Python reads for /usr/local) and the CMake module (cmake/mcsgen.cmake) under PREFIX
# (docs/reference/python-api.md, docs/reference/cmake.md).
PREFIX ?= /usr/local
install: deps
	scripts/install "$(PREFIX)"

# `import mcsgen` from any directory with this checkout's package (it builds into build/ here): a
# .pth file in the user's site-packages naming generator/ (docs/reference/python-api.md).
develop:
	@site=$$($(PYTHON) -m site --user-site) \
	  || { echo "make develop: the user site-packages is turned off ($$site)" >&2; exit 1; }; \
	  mkdir -p "$$site" && echo "$(CURDIR)/generator" > "$$site/mcsgen.pth" \
	  && echo "$$site/mcsgen.pth: import mcsgen finds $(CURDIR)/generator/mcsgen"

clean:
	rm -rf $(B) out
