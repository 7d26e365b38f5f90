/* mcs_status.c - descriptions of the status codes. */
#include "mcs/mcs_status.h"

const char *mcs_status_str(mcs_status status)
{
    switch (status) {
    case MCS_OK: return "ok";
    case MCS_ERR_ARGUMENT: return "invalid argument";
    case MCS_ERR_WORKSPACE: return "workspace too small";
    case MCS_ERR_MODEL_VERSION: return "model generated for another runtime version; regenerate it";
    case MCS_ERR_NEWTON: return "position Newton iteration did not converge";
    case MCS_ERR_SINGULAR_CHART: return "constraint Jacobian singular on the chart (A_S U)";
    case MCS_ERR_MASS_NOT_PD: return "reduced mass matrix not positive definite";
    case MCS_ERR_NONFINITE: return "non-finite value in the state or a model kernel";
    case MCS_ERR_LINALG: return "linear algebra routine failed";
    case MCS_ERR_STEP_TOO_SMALL: return "step size fell below the minimum";
    case MCS_ERR_ASSEMBLY:
        return "initial state could not be assembled (c = 0, or held velocities)";
    case MCS_ERR_NO_DENSE: return "dense output requested outside the last step";
    case MCS_ERR_SINGULAR_JACOBIAN:
        return "static Newton matrix singular (no stiffness along a free direction)";
    case MCS_ERR_NO_CONVERGENCE: return "static Newton iteration did not converge";
    case MCS_ERR_UNSUPPORTED:
        return "not available with this linear-algebra backend or model's kernel sets";
    case MCS_ERR_LIMIT: return "step or attempt limit reached (options max_steps, max_attempts)";
    case MCS_ERR_UNACTUATED: return "the inputs act on no motion at this state";
    case MCS_NSTATUS:
    default: break;
    }
    return "unknown status";
}
