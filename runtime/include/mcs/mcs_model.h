/* mcs_model.h - the constant descriptor through which the runtime drives any generated model.
 *
 * A generated model (generated/<name>/<name>.h) exports typed kernels taking its own parameter
 * struct and one `const mcs_model <name>_model` built from them. Every kernel is pure and
 * reentrant: it reads its inputs and writes every entry of its caller-owned output.
 * Matrices are column-major (LAPACK order): entry (i, j) of an (r x c) matrix is out[i + j*r].
 */
#ifndef MCS_MODEL_H
#define MCS_MODEL_H

#include "mcs_config.h"

/* Bumped whenever the layout below changes; generated headers refuse to compile against another
 * (the generator's MODEL_ABI_VERSION, emit/render.py, must equal it: a test checks). */
#define MCS_MODEL_ABI_VERSION 16

/* Kernel of (x, t): c (nc), A (nc x nx), c_t (nc), M (nx x nx), A_nz (a_nnz), M_nz (m_nnz). */
typedef void (*mcs_kernel_xt)(const mcs_real *x, mcs_real t, const void *params, mcs_real *out);
/* Kernel of (x, w, t): w is v for gamma, A_dot, f, K_f, D and the multipliers lambda (nc) for K_c. */
typedef void (*mcs_kernel_xwt)(const mcs_real *x, const mcs_real *w, mcs_real t, const void *params,
                               mcs_real *out);
/* M's nonzeros (m_nnz) and f (nx) at one state, computed together (their intermediates and
 * trigonometry shared): a model in joint coordinates has it; the runtime calls M_nz and f when
 * it is NULL. */
typedef void (*mcs_kernel_Mf)(const mcs_real *x, const mcs_real *v, mcs_real t, const void *params,
                              mcs_real *M_out, mcs_real *f_out);
/* Scalars: the potential energy V(x, t) and the kinetic energy T(x, v, t). */
typedef mcs_real (*mcs_scalar_xt)(const mcs_real *x, mcs_real t, const void *params);
typedef mcs_real (*mcs_scalar_xvt)(const mcs_real *x, const mcs_real *v, mcs_real t,
                                   const void *params);

/* What a joint's `rate` refers to. */
typedef enum mcs_joint_coordinate {
    MCS_JOINT_COORD_NONE = 0,
    MCS_JOINT_COORD_ANGLE = 1,      /* rotation about the joint axis */
    MCS_JOINT_COORD_TRANSLATION = 2 /* translation along the joint axis */
} mcs_joint_coordinate;

/* A group of rows the runtime adds when a switch is activated (docs/explanation/transitions.md): a joint's
 * lock (it becomes a fixed joint at its pose then) or a switch's explicit rows. The generated
 * kernels give quantities g(x) (ng entries, no t); the runtime forms the nrows rows from them:
 *   - when `rotation` is not 0, g[0..3] is a relative rotation quaternion rho(x) and each set bit
 *     (1: x, 2: y, 4: z) adds the row Im(rho(x) conj(rho_ref))_x|y|z, rho_ref = rho(x_event);
 *   - every further entry g[e] adds the row g[e](x) - g[e](x_event) (capture = 1, a lock) or
 *     g[e](x) (capture = 0, explicit rows).
 * A group whose entries are coordinates of x (a tree joint's lock in joint coordinates: g[e] =
 * x[coords[e]]) has coords set and no kernels (g, G, gamma and G_dot NULL): the runtime forms its
 * g, unit rows G and zero gamma and G_dot itself (mcs_rows.c). */
typedef struct mcs_row_group {
    const char *name;     /* the joint's (its lock) or the switch's */
    int ng;               /* entries of g */
    int rotation;         /* bits 1, 2, 4: rotation rows (0: g has no quaternion) */
    int capture;          /* 1: rows relative to the values at the activation */
    int nrows;            /* rows added: the set bits of rotation + ng - (rotation ? 4 : 0) */
    mcs_kernel_xt g;      /* (ng)      g(x) */
    mcs_kernel_xt G;      /* (ng x nx) dg/dx */
    mcs_kernel_xwt gamma; /* (ng)      -(dG/dt) v, so that G xdd = gamma + d2g/dt2 */
    mcs_kernel_xwt G_dot; /* (ng x nx) dG/dt along v */
    const int *coords;    /* (ng) the coordinates g holds (then no kernels), or NULL */
} mcs_row_group;

/* A joint of a bodies-and-joints model (paper 003 §2): its rows of c and what it leaves free. */
typedef struct mcs_joint {
    const char *name;
    const char *type;  /* revolute, prismatic, spherical, ... (docs/reference/model-file.md) */
    const char *body1; /* the body of frame F1 */
    const char *body2; /* the body of frame F2, or "ground" */
    int first_row;     /* its rows are first_row .. first_row + nrows - 1 of c */
    int nrows;
    int coordinate;  /* an mcs_joint_coordinate */
    int lock_group;  /* its lock: an index into the model's row groups, or -1 (nothing to lock) */
    int driven;      /* 1 when its rows include a drive (a function of t) */
    int coord_index; /* its free coordinate's index in joint_coords' output, or -1 (none) */
} mcs_joint;

/* A switch of the mechanism file (docs/explanation/transitions.md), inactive until an event activates
 * it: a coordinate's lock, or a row group (a joint's lock, or explicit rows). */
typedef struct mcs_switch {
    const char *name;
    int coordinate; /* the coordinate it locks, or -1 */
    int group;      /* else its rows: an index into the model's row groups */
} mcs_switch;

/* An event of the mechanism file: at time t, or when condition(x, v, t) crosses zero in the
 * given direction (once), activate or deactivate a switch. */
typedef struct mcs_switch_event {
    mcs_real t;   /* the time of a timed event (condition == NULL) */
    int sw;       /* index into the model's switches */
    int activate; /* 1: activate, 0: deactivate */
    mcs_real (*condition)(const mcs_real *x, const mcs_real *v, mcs_real t, const void *params);
    int direction; /* condition events: 1 rising, -1 falling, 0 either way */
} mcs_switch_event;

/* An end stop of the mechanism file (`stops:`, docs/explanation/stops.md): limits of a coordinate
 * or of a revolute or prismatic joint's free coordinate (its angle or position, joint_coords'
 * output coord_index). mcs_stops.h locates where the coordinate reaches a limit, applies the impact
 * (restitution e along the stop, 004's momentum-consistent jump in every other direction) and
 * holds the limit with the coordinate's lock (mcs_sim_lock) or the joint's (its lock_group) until
 * the reaction would pull. */
typedef struct mcs_stop {
    const char *name; /* the coordinate's or the joint's */
    int coordinate;   /* the coordinate of x it limits (a model given by coordinates), or -1 */
    int joint;        /* else the joint (an index into joints) whose free coordinate it limits */
    int sides;        /* bit 1: the lower limit is given, bit 2: the upper */
    mcs_real lower;   /* the limits (0 where the side is absent) */
    mcs_real upper;
    mcs_real restitution; /* e in [0, 1]: the rebound rate is -e times the impact rate */
} mcs_stop;

#define MCS_STOP_LOWER 1
#define MCS_STOP_UPPER 2

/* Coulomb friction of the mechanism file (`friction:`, docs/explanation/stops.md) on a coordinate
 * of x: a model's own coordinate, or a tree joint's in joint coordinates. While the coordinate
 * slides, the force -kinetic sign(rate) acts along it (mcs_sim_set_friction); while it sticks, its
 * lock (mcs_sim_lock) holds it until the holding force reaches the static level. */
typedef struct mcs_friction {
    const char *name;      /* the coordinate's or the joint's */
    int coordinate;        /* the coordinate of x it acts along */
    mcs_real kinetic;      /* the sliding level (a force or a torque) */
    mcs_real static_level; /* the most the stuck coordinate holds (>= kinetic) */
} mcs_friction;

/* What the banded simulator (options.banded) factors by, laid out at generation time
 * (generator/mcsgen/emit/structure.py): the QR of A^T by rows and Givens rotations, R (nc x nc)
 * banded, and the KKT matrix [[M, A^T], [A, 0]] in a banded order. Slots are A^T's rows
 * (coordinates) in factorization order; columns are R's (constraints in c_order). */
typedef struct mcs_band_structure {
    int width;            /* R's band: row c has its nonzeros in columns c .. c + width - 1 */
    int nrot;             /* rotations of one factorization */
    const int *c_order;   /* (nc) the constraint at each column of R */
    const int *c_pos;     /* (nc) each constraint's column of R */
    const int *x_order;   /* (nx) the coordinate in each slot */
    const int *first;     /* (nx) a slot's first column (nc: none) */
    const int *rot_start; /* (nx + 1) slot k's rotations are rot_start[k] .. rot_start[k + 1] - 1 */
    const int *rot_col;   /* (nrot) the column of R each rotation annihilates the slot's entry in */
    const int *place;     /* (nx) the column of R slot k becomes, or -1: a tangent slot */
    const int *owner;     /* (nc) the slot that holds row c of R */
    const int
        *a_col_start;   /* (nx + 1) coordinate j's nonzeros of A: a_col_start[j] .. [j + 1] - 1 */
    int kkt_band;       /* the KKT matrix's half bandwidth in its order */
    const int *kkt_pos; /* (nx + nc) position of each variable (coordinates, then rows) */
} mcs_band_structure;

/* What physics says of the energy T + V of a model's motion, decided at generation from its
 * structure with the mechanism file's parameter values (generator/mcsgen/model/energy.py). A run
 * in which it grows although it cannot is wrong (mcs_simulate: the summary says so). */
typedef enum mcs_energy_balance {
    MCS_ENERGY_UNDEFINED = 0,  /* the model defines no potential energy */
    MCS_ENERGY_CONSERVED = 1,  /* gravity, springs and ideal joints only */
    MCS_ENERGY_DISSIPATED = 2, /* dampers besides: it can only decrease (locks lose some too) */
    MCS_ENERGY_EXCHANGED = 3   /* drivers, applied or time-varying forces: it may grow */
} mcs_energy_balance;

typedef struct mcs_model {
    int abi_version;                     /* MCS_MODEL_ABI_VERSION at generation */
    const char *name;                    /* model name (a C identifier) */
    const char *source_hash;             /* sha256 of the mechanism file */
    int nx;                              /* number of coordinates n */
    int nc;                              /* number of constraint rows m (may be 0) */
    int np;                              /* number of parameters */
    const char *const *coord_names;      /* (nx) */
    const char *const *coord_units;      /* (nx) */
    const char *const *constraint_names; /* (nc) or NULL when nc = 0 */
    const char *const *param_names;      /* (np) or NULL */
    const char *const *param_units;      /* (np) or NULL */
    size_t params_size;                  /* sizeof the model's parameter struct */
    const void *default_params;          /* the defaults from the mechanism file */
    const size_t *param_offsets;         /* (np) byte offset of each mcs_real member, or NULL */
    int a_nnz;                           /* structural nonzeros of A */
    const int *a_rows;                   /* (a_nnz) row of each nonzero, or NULL */
    const int *a_cols;                   /* (a_nnz) column of each nonzero, or NULL; the
                                            nonzeros column by column, rows ascending */
    const int *a_row_start;              /* (nc + 1) the same row by row: row i's nonzeros are */
    const int *a_row_nz;                 /* a_row_nz[k] for a_row_start[i] <= k < a_row_start[i +
                                            1] (indices into a_rows, a_cols), columns ascending */
    int m_nnz;                           /* structural nonzeros of M */
    const int *m_rows;                   /* (m_nnz) row of each nonzero, or NULL */
    const int *m_cols;                   /* (m_nnz) column of each, or NULL (column by column) */
    const mcs_real *x0;                  /* (nx) initial positions from the mechanism file */
    const mcs_real *v0;                  /* (nx) initial velocities */
    /* Default simulation settings from the mechanism file. */
    mcs_real t_end;
    mcs_real h;
    mcs_real rtol;
    mcs_real atol;
    mcs_real dt_out;  /* dt_out = 0: one output row per step */
    int method;       /* an mcs_method */
    int continuation; /* an mcs_continuation */
    /* Kernels (SPEC §1). */
    mcs_kernel_xt c;      /* (nc)      c(x, t) */
    mcs_kernel_xt A;      /* (nc x nx) dc/dx */
    mcs_kernel_xt c_t;    /* (nc)      dc/dt */
    mcs_kernel_xwt gamma; /* (nc)      A xdd = gamma(x, v, t) */
    mcs_kernel_xwt A_dot; /* (nc x nx) dA/dt along v */
    mcs_kernel_xt M;      /* (nx x nx) mass matrix */
    mcs_kernel_xwt f;     /* (nx)      applied minus quadratic-velocity forces */
    mcs_kernel_xwt K_c;   /* (nx x nx) d(A^T lambda)/dx, w = lambda */
    mcs_kernel_xwt K_f;   /* (nx x nx) -df/dx */
    mcs_kernel_xwt D;     /* (nx x nx) -df/dv */
    /* The same matrices as their nonzeros in pattern order (A, A_dot and M above spread these):
     * what the compact simulator (options.compact) and sparse products use. */
    mcs_kernel_xt A_nz;      /* (a_nnz)   A at (a_rows[k], a_cols[k]) */
    mcs_kernel_xwt A_dot_nz; /* (a_nnz)   A_dot in A's pattern (NULL when A_dot is) */
    mcs_kernel_xt M_nz;      /* (m_nnz)   M at (m_rows[k], m_cols[k]) */
    mcs_kernel_Mf M_f;       /* (m_nnz)   M_nz and f (nx) at once, or NULL (mcs_kernel_Mf) */
    mcs_scalar_xvt kinetic;  /* T(x, v, t): the model's, or 1/2 v^T M v */
    mcs_scalar_xt potential; /* V(x, t), or NULL when the model defines no energy */
    /* Joints of a bodies-and-joints model (nj = 0 for a model given by coordinates). */
    int nj;
    const mcs_joint *joints; /* (nj) or NULL */
    /* Row groups: the joints' locks, then the switches' explicit rows. */
    int ngroups;
    const mcs_row_group *groups; /* (ngroups) or NULL */
    /* Switches and the events that switch them (time order). */
    int nswitches;
    const mcs_switch *switches; /* (nswitches) or NULL */
    int nevents;
    const mcs_switch_event *events; /* (nevents) or NULL */
    int nstops;
    const mcs_stop *stops; /* (nstops) or NULL: end stops (with the transitions kernel set) */
    int nfriction;
    const mcs_friction *friction; /* (nfriction) or NULL: Coulomb friction (likewise) */
    /* The joints' free coordinates (angle about or translation along the axis, measured from the
     * initial pose; an angle is not wrapped to (-pi, pi] but may jump by a multiple of 2 pi) and
     * their rates: out (2 njc) = [q_j(x) ..., dq_j/dt(x, v) ...], w = v. NULL when njc = 0. */
    int njc;
    mcs_kernel_xwt joint_coords;
    /* The initial state as a function of the parameters, for values other than the defaults
     * (mcs_sim_start, SPEC §4): initial (2 nx) = [x0; v0], the mechanism file's positions and
     * velocities (0 where held conditions decide them), x and t not read; NULL when neither
     * they nor the constraint rows depend on a parameter (x0, v0 above then hold for all). */
    mcs_kernel_xt initial;
    int nheld;          /* held initial velocity conditions (body velocities, joint rates) */
    mcs_kernel_xt held; /* (nheld x (nx + 1)) [H(x) | h]: H v = h held; NULL when nheld = 0 */
    /* The joints' reactions as forces and moments, the same in body and joint coordinates:
     * out (nw) per joint in joint order (F_x, F_y, N_z) for a planar model, (F_x, F_y, F_z, N_x,
     * N_y, N_z) for a spatial one, the force and moment the joint exerts on its body 2 (world
     * frame, the moment about the joint's point on body 2), at w = [v (nx); x'' (nx); lam (nc);
     * nu (nmu); u (nu)], nu the multipliers of the row groups' quantities g (every group's, in
     * order; 0 where not locked: mcs_sim_joint_wrenches), u the inputs. NULL without joints or without the reactions
     * kernel set. */
    int nw;
    int nmu;
    mcs_kernel_xwt joint_wrenches;
    /* The banded simulator's structure, or NULL (no rows, or A structurally rank deficient). */
    const mcs_band_structure *band;
    int energy_balance; /* an mcs_energy_balance */
    /* The mechanism file's inputs u (docs/reference/inputs-outputs.md): the generalized forces they apply are
     * f_u(x, u, t) = B(x, t) u, which the simulator adds to f (mcs_sim_set_inputs; every other
     * kernel is at u = 0 but joint_wrenches, whose w ends with u). 0 and NULL without inputs. */
    int nu;
    const char *const *input_names; /* (nu) */
    const char *const *input_units; /* (nu) */
    const mcs_real *input_limits;   /* (2 nu) [lower, upper] of each, metadata (the caller
                                        saturates); 0, 0: the file gives none */
    mcs_kernel_xwt f_u;             /* (nx) B(x, t) u, w = u (nu) */
    /* The coordinates' tangents of the dynamics' two equations, for the exact linearization
     * (mcs_sim_linearize) beside K_c, K_f and D: along a direction dx (nx), at accelerations a
     * (nx) and inputs u (nu),
     *   M_x     (nx) = d(M a - B u)/dx dx,      w = [a (nx); u (nu); dx (nx)]
     *   gamma_x (nc) = d(A a - gamma)/dx dx,    w = [v (nx); a (nx); dx (nx)]
     * NULL without the linearization kernel set. */
    mcs_kernel_xwt M_x;
    mcs_kernel_xwt gamma_x;
    /* The mechanism file's outputs y = h(x, v, u, t) (docs/reference/inputs-outputs.md): sensor quantities
     * (joint angles and rates, points of bodies and their velocities, distances, expressions),
     * at w = [v (nx); u (nu)] (mcs_sim_outputs); outputs_x their tangent along a direction,
     *   outputs_x (ny) = dh/dx dx + dh/dv dv + dh/du du,
     *   w = [v (nx); u (nu); dx (nx); dv (nx); du (nu)]
     * (mcs_sim_linearize_outputs; NULL without the linearization kernel set). 0 and NULL
     * without outputs. */
    int ny;
    const char *const *output_names; /* (ny) */
    const char *const *output_units; /* (ny) */
    mcs_kernel_xwt outputs;
    mcs_kernel_xwt outputs_x;
} mcs_model;

#endif /* MCS_MODEL_H */
