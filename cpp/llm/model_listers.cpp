// The vendors' model lists as the specs' ModelLister (provider_spec.hpp), over
// model_catalogue.cpp's requests and readers.
#include "llm/model_catalogue.hpp"
#include "llm/provider_spec.hpp"

namespace llmv {

namespace {

class CatalogueLister : public ModelLister {
  public:
    CatalogueLister(const std::string& vendor, const ProviderConfig& config)
        : catalogue_(vendor, config) {}
    std::vector<HttpRequest> requests() const override { return catalogue_.requests(); }
    std::optional<HttpRequest> read(const HttpRequest& request, const HttpResponse& response,
                                    std::vector<CatalogueModel>& into) const override {
        return catalogue_.read(request, response, into);
    }

  private:
    ModelCatalogue catalogue_;
};

}  // namespace

ModelListerFactory vendor_model_list(const std::string& vendor) {
    return [vendor](const ProviderConfig& config) -> std::unique_ptr<ModelLister> {
        return std::make_unique<CatalogueLister>(vendor, config);
    };
}

}  // namespace llmv
