#include <iostream>

int main() {
    std::cout << "llmvalidate 0.1.0\n";
    return 0;
}
