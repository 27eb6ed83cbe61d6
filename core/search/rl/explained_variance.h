// The critic's explained variance, as every PPO update reports it: 1 − Var(returns − values) / Var(returns),
// CleanRL's definition (its ppo.py: 1 − np.var(y_true − y_pred) / np.var(y_true)). Both variances are
// centred, so a value head that is right up to a constant offset explains everything: the advantages
// PPO uses are centred per minibatch anyway, and an offset costs them nothing. An uncentred residual
// would count such an offset as unexplained (docs/ppo.md, "Evidence", names the reports that used that
// form). Header-only and free of libtorch, so the plug-in and the tests share it.
#pragma once

#include <cstddef>
#include <vector>

namespace sassx::search {

/// 1 = the values explain all the returns' variance; 0 = none (or the returns do not vary: nothing to
/// explain, where CleanRL reports NaN, which JSON cannot hold); < 0 = worse than a constant.
inline double explainedVariance(const std::vector<double>& returns, const std::vector<double>& values)
{
    const size_t n = returns.size() < values.size() ? returns.size() : values.size();
    if (n == 0) return 0.0;
    double meanRet = 0, meanRes = 0;
    for (size_t k = 0; k < n; ++k) {
        meanRet += returns[k];
        meanRes += returns[k] - values[k];
    }
    meanRet /= double(n);
    meanRes /= double(n);
    double varRet = 0, varRes = 0;
    for (size_t k = 0; k < n; ++k) {
        varRet += (returns[k] - meanRet) * (returns[k] - meanRet);
        const double res = returns[k] - values[k] - meanRes;
        varRes += res * res;
    }
    return varRet > 0 ? 1.0 - varRes / varRet : 0.0;
}

} // namespace sassx::search
